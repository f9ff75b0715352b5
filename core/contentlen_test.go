package weida_test

import (
	"context"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// A whole-payload send knows its length before the first byte and states it
// (DATA key 1, advisory); a streamed transfer does not, unless its meta
// says so; an application's own statement is kept.
func TestWholePayloadSendsStateTheirLength(t *testing.T) {
	push, pull := lenPushPull(t)

	cases := []struct {
		name string
		send func(ctx context.Context) error
		want uint64
		has  bool
	}{
		{"Send", func(ctx context.Context) error { return push.Send(ctx, []byte("12345")) }, 5, true},
		{"SendWith keeps a stated length", func(ctx context.Context) error {
			return push.SendWith(ctx, weida.TransferMeta{ContentLen: 9, HasContentLen: true}, []byte("123"))
		}, 9, true},
		{"SendReporting", func(ctx context.Context) error {
			c, err := push.SendReporting(ctx, []byte("1234"), weida.ReportOrder{Levels: []uint64{weida.Processed}})
			if c != nil {
				_ = c.Close()
			}
			return err
		}, 4, true},
		{"a streamed transfer states nothing", func(ctx context.Context) error {
			out, err := push.Open(ctx, weida.TransferMeta{})
			if err != nil {
				return err
			}
			if _, err := out.Write([]byte("streamed")); err != nil {
				return err
			}
			_, err = out.Finish()
			return err
		}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxFor(t)
			if err := c.send(ctx); err != nil {
				t.Fatal(err)
			}
			_, meta, err := pull.Recv(ctx, 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			if got, has := meta.ContentLen(); got != c.want || has != c.has {
				t.Errorf("content_len = %d (present %v), want %d (present %v)", got, has, c.want, c.has)
			}
		})
	}
}

func TestRequestAndReplyStateTheirLength(t *testing.T) {
	srv := testRuntime(t)
	rep, err := srv.Listener().Replier("/len")
	if err != nil {
		t.Fatal(err)
	}
	b := bindLoopback(t, srv)
	req := testRuntime(t).Requester(weida.TrustByAddress())
	ctx := ctxFor(t)
	if err := req.Connect(ctx, b.URL("/len")); err != nil {
		t.Fatal(err)
	}
	asked := make(chan uint64, 1)
	go func() {
		r, err := rep.Accept(ctx, 1<<10)
		if err != nil {
			asked <- 0
			return
		}
		n, _ := r.Meta().ContentLen()
		asked <- n
		_ = r.Reply(ctx, []byte("a reply of 18 b..."))
	}()
	_, meta, err := req.RequestWith(ctx, weida.TransferMeta{}, []byte("ping"), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if n := <-asked; n != 4 {
		t.Errorf("the request's content_len = %d, want 4", n)
	}
	if n, has := meta.ContentLen(); n != 18 || !has {
		t.Errorf("the reply's content_len = %d (present %v), want 18", n, has)
	}
}

// A stated length within the ceiling sizes the receive buffer, but the
// payload is what arrives: a sender that states too little or too much gets
// its bytes through exactly, and the ceiling holds whatever it stated.
func TestCollectTakesWhatArrivesWhateverTheStatedLength(t *testing.T) {
	push, pull := lenPushPull(t)
	const ceiling = 64 << 10
	cases := []struct {
		name         string
		stated, sent int
		wantTooLarge bool
	}{
		{"as stated", 40 << 10, 40 << 10, false},
		{"more than stated", 20 << 10, 50 << 10, false},
		{"less than stated", 60 << 10, 30 << 10, false},
		{"more than stated, beyond the ceiling", 20 << 10, ceiling + 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := make([]byte, c.sent)
			for i := range payload {
				payload[i] = byte(i * 7)
			}
			meta := weida.TransferMeta{ContentLen: uint64(c.stated), HasContentLen: true}
			if err := push.SendWith(ctxFor(t), meta, payload); err != nil {
				t.Fatal(err)
			}
			got, _, err := pull.Recv(ctxFor(t), ceiling)
			if c.wantTooLarge {
				reqrepWantKind(t, "recv above the ceiling", err, weida.KindLimitExceeded)
				return
			}
			if err != nil || string(got) != string(payload) {
				t.Fatalf("recv: %d bytes, %v; want the %d sent", len(got), err, len(payload))
			}
		})
	}
}

// lenPushPull is a pusher connected to a puller at /len.
func lenPushPull(t *testing.T) (*weida.Pusher, *weida.Puller) {
	t.Helper()
	srv := testRuntime(t)
	pull, err := srv.Listener().Puller("/len")
	if err != nil {
		t.Fatal(err)
	}
	b := bindLoopback(t, srv)
	return pushpullPusher(t, testRuntime(t), nil, b.URL("/len")), pull
}
