package weida_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// pushpullWindow is the default per-stream receive window: a payload beyond
// it cannot be acknowledged (or refused unseen) before the puller reads.
const pushpullWindow = 1 << 20

// pushpullServer is a puller at /jobs that can be restarted on its address.
type pushpullServer struct {
	rt   *weida.Runtime
	b    *weida.Binding
	pull *weida.Puller
	addr string
	url  string
}

// pushpullServeAt registers the puller before binding, so a redial never
// finds the path missing.
func pushpullServeAt(t testing.TB, addr string, id *weida.Identity, cfg weida.Config) *pushpullServer {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	pull, err := rt.Listener().Puller("/jobs")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	return &pushpullServer{rt: rt, b: b, pull: pull, addr: b.LocalAddr(), url: b.URL("/jobs")}
}

// pushpullServe starts a puller at /jobs under cfg with a fresh identity.
func pushpullServe(t *testing.T, cfg weida.Config) *pushpullServer {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return pushpullServeAt(t, "127.0.0.1:0", id, cfg)
}

// pushpullPusher is a pusher on rt (closed at cleanup) connected to every url.
func pushpullPusher(t *testing.T, rt *weida.Runtime, opts []weida.EndpointOption, urls ...string) *weida.Pusher {
	t.Helper()
	p := rt.Pusher(weida.TrustByAddress(), opts...)
	t.Cleanup(func() { _ = p.Close() })
	for _, url := range urls {
		if err := p.Connect(ctxFor(t), url); err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
	}
	return p
}

// pushpullRuntime is a runtime under cfg, shut down at cleanup.
func pushpullRuntime(t *testing.T, cfg weida.Config) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

func TestPushReceiptResolvesBeforeRecv(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	out, err := push.Open(ctxFor(t), weida.TransferMeta{ContentLen: 5, HasContentLen: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("job-1")); err != nil {
		t.Fatal(err)
	}
	d, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	// Nobody has called Recv: the message waits in the puller's queue, and
	// the peer's transport already holds it.
	if err := d.Delivered(ctxFor(t)); err != nil {
		t.Fatalf("receipt of an in-window payload before Recv: %v", err)
	}
	body, meta, err := srv.pull.Recv(ctxFor(t), 64)
	if err != nil || string(body) != "job-1" {
		t.Fatalf("recv %q, %v", body, err)
	}
	if ep, _ := meta.Endpoint(); ep != "/jobs" {
		t.Fatalf("endpoint %q", ep)
	}
	if n, ok := meta.ContentLen(); !ok || n != 5 {
		t.Fatalf("content_len %d %v", n, ok)
	}
}

func TestPushFireAndForget(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	if err := push.SendWith(ctxFor(t), weida.TransferMeta{ContentType: "text/plain"}, []byte("labelled")); err != nil {
		t.Fatal(err)
	}
	body, meta, err := srv.pull.Recv(ctxFor(t), 64)
	if err != nil || string(body) != "labelled" {
		t.Fatalf("recv %q, %v", body, err)
	}
	if ct, _ := meta.ContentType(); ct != "text/plain" {
		t.Fatalf("content type %q", ct)
	}
	if err := push.Send(ctxFor(t), []byte("plain")); err != nil {
		t.Fatal(err)
	}
	if body, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil || string(body) != "plain" {
		t.Fatalf("recv %q, %v", body, err)
	}
	if push.Dropped() != 0 {
		t.Fatalf("dropped %d", push.Dropped())
	}
}

func TestPushRoundRobinOverTwoPullers(t *testing.T) {
	a, b := pushpullServe(t, weida.Config{}), pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, a.url, b.url)
	if push.PeerCount() != 2 {
		t.Fatalf("peer count %d", push.PeerCount())
	}
	for i := range 10 {
		if err := push.Send(ctxFor(t), fmt.Appendf(nil, "job-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Ten messages were sent: if one puller got more than five, the other's
	// fifth Recv runs out of time.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range []*pushpullServer{a, b} {
		for n := range 5 {
			if _, _, err := srv.pull.Recv(ctx, 64); err != nil {
				t.Fatalf("%s got %d of its 5: %v", srv.url, n, err)
			}
		}
	}
}

func TestPushRefusedByDispatch(t *testing.T) {
	rt, b := reqrepBind(t, weida.Config{})
	if _, err := rt.Listener().Replier("/rep"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want weida.ErrorKind
	}{
		{"/nowhere", weida.KindUnknownEndpoint},
		{"/rep", weida.KindUnsupported},
	} {
		t.Run(tc.path, func(t *testing.T) {
			push := pushpullPusher(t, testRuntime(t), nil, b.URL(tc.path))
			// Beyond the window the refusal is certain (decision 0005): the
			// write cannot complete before the stop arrives.
			err := push.Send(ctxFor(t), reqrepPattern(2*pushpullWindow))
			reqrepWantKind(t, "send", err, tc.want)
			if push.PeerCount() != 1 {
				t.Fatal("a refusal must not cost the connection")
			}
		})
	}
}

func TestPullCanceledTransferReadsAsCanceled(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	out, err := push.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	in, err := srv.pull.RecvStream(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	out.Cancel()
	if _, err := io.ReadAll(in); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("read of a canceled transfer: %v, want Canceled (never EOF)", err)
	}
	if err := push.Send(ctxFor(t), []byte("next")); err != nil {
		t.Fatal(err)
	}
	if body, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil || string(body) != "next" {
		t.Fatalf("the puller after a canceled transfer: %q, %v", body, err)
	}
}

func TestPullCeilingRefusesAndStaysUsable(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	sent := make(chan error, 1)
	// 4 MiB cannot fit the 1 MiB the puller reads plus its window, so the
	// pusher certainly sees the refusal.
	go func() { sent <- push.Send(ctxFor(t), reqrepPattern(4*pushpullWindow)) }()
	_, _, err := srv.pull.Recv(ctxFor(t), pushpullWindow)
	reqrepWantKind(t, "recv above the ceiling", err, weida.KindLimitExceeded)
	reqrepWantKind(t, "send refused by the ceiling", <-sent, weida.KindRejected)

	if err := push.Send(ctxFor(t), []byte("after")); err != nil {
		t.Fatal(err)
	}
	if body, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil || string(body) != "after" {
		t.Fatalf("the puller after a refusal: %q, %v", body, err)
	}
}

func TestPullRecvAbandonedMidReadRefusesTheMessage(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	out, err := push.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctxFor(t))
	received := make(chan error, 1)
	go func() {
		_, _, err := srv.pull.Recv(ctx, 8<<20)
		received <- err
	}()
	// Beyond the window this write returns only once Recv is reading the
	// message; then nothing more comes, and Recv waits mid-payload.
	if _, err := out.Write(reqrepPattern(pushpullWindow + 64<<10)); err != nil {
		t.Fatal(err)
	}
	cancel()
	reqrepWantKind(t, "recv abandoned mid-read", <-received, weida.KindCanceled)
	for err == nil {
		_, err = out.Write(make([]byte, 64<<10))
	}
	reqrepWantKind(t, "pusher of the abandoned message", err, weida.KindRejected)
}

func TestPushWhenThePullerDies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cut      func(*testing.T, *weida.OutgoingTransfer, *weida.Runtime) error
		want     []weida.ErrorKind // any one of them
		definite bool
	}{
		{"before FIN", func(t *testing.T, out *weida.OutgoingTransfer, srv *weida.Runtime) error {
			_, _ = out.Write([]byte("partial"))
			srv.Shutdown()
			for {
				if _, err := out.Write(make([]byte, 64<<10)); err != nil {
					return err
				}
			}
			// A puller shutting down stops the transfer (STOP_SENDING
			// SHUTDOWN: Rejected) before it closes the connection
			// (ConnectionLost); the writer meets whichever arrives first.
			// Either way the message was definitely not taken.
		}, []weida.ErrorKind{weida.KindConnectionLost, weida.KindRejected}, true},
		// The tail beyond the window waits for a read that never comes, so
		// the receipt is still open when the connection ends.
		{"after FIN", func(t *testing.T, out *weida.OutgoingTransfer, srv *weida.Runtime) error {
			if _, err := out.Write(reqrepPattern(pushpullWindow + 1000)); err != nil {
				return err
			}
			d, err := out.Finish()
			if err != nil {
				return err
			}
			srv.Shutdown()
			return d.Delivered(ctxFor(t))
		}, []weida.ErrorKind{weida.KindIndeterminate}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := pushpullServe(t, weida.Config{})
			push := pushpullPusher(t, testRuntime(t), nil, srv.url)
			out, err := push.Open(ctxFor(t), weida.TransferMeta{})
			if err != nil {
				t.Fatal(err)
			}
			err = tc.cut(t, out, srv.rt)
			if !slices.Contains(tc.want, weida.KindOf(err)) {
				t.Fatalf("outcome: %v, want one of %v", err, tc.want)
			}
			if weida.IsDefiniteFailure(err) != tc.definite {
				t.Fatalf("%v: definite = %v, want %v", err, !tc.definite, tc.definite)
			}
		})
	}
}

func TestPushOutboxDeliversSendsMadeDuringAnOutage(t *testing.T) {
	cfg := weida.Config{}
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	srv := pushpullServeAt(t, "127.0.0.1:0", id, cfg)
	push := pushpullPusher(t, testRuntime(t), []weida.EndpointOption{fastRedial()})
	events := push.Events()
	if err := push.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)
	srv.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)

	want := []string{"one", "two", "three"}
	for _, m := range want {
		if err := push.Send(ctxFor(t), []byte(m)); err != nil {
			t.Fatalf("send during the outage: %v", err)
		}
	}
	restarted := pushpullServeAt(t, srv.addr, id, cfg)
	// The outbox writes in send order, but each stream is dispatched on its
	// own at the receiver and streams are unordered (SEMANTICS.md §2), so
	// the arrival order is not asserted: each message exactly once is.
	got := map[string]int{}
	for range want {
		body, _, err := restarted.pull.Recv(ctxFor(t), 64)
		if err != nil {
			t.Fatalf("after the restart: %v", err)
		}
		got[string(body)]++
	}
	for _, m := range want {
		if got[m] != 1 {
			t.Fatalf("after the restart got %v, want each of %v once", got, want)
		}
	}
	if push.Dropped() != 0 {
		t.Fatalf("dropped %d", push.Dropped())
	}
}

func TestPushOutboxBounds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cfg         weida.Config
		sizes       []int // sent in order during the outage; all but the last must be taken
		block       bool  // the last send is expected to wait
		wantLast    weida.ErrorKind
		wantDropped uint64
	}{
		{"reject at the message bound", weida.Config{OutboxMessages: 2, OutboxFull: weida.OutboxReject},
			[]int{8, 8, 8}, false, weida.KindLimitExceeded, 0},
		{"drop at the message bound", weida.Config{OutboxMessages: 2, OutboxFull: weida.OutboxDrop},
			[]int{8, 8, 8}, false, 0, 1},
		{"reject at the byte bound", weida.Config{OutboxBytes: 100, OutboxFull: weida.OutboxReject},
			[]int{40, 40, 40}, false, weida.KindLimitExceeded, 0},
		{"a body above the byte bound", weida.Config{OutboxBytes: 100, OutboxFull: weida.OutboxDrop},
			[]int{200}, false, weida.KindLimitExceeded, 0},
		{"block waits for room", weida.Config{OutboxMessages: 2},
			[]int{8, 8, 8}, true, weida.KindCanceled, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			push := pusherInOutage(t, tc.cfg)
			last := len(tc.sizes) - 1
			for _, n := range tc.sizes[:last] {
				if err := push.Send(ctxFor(t), make([]byte, n)); err != nil {
					t.Fatalf("send into the outbox: %v", err)
				}
			}
			ctx := ctxFor(t)
			if tc.block {
				// A bounded negative check: a send still waiting after
				// 100 ms is taken as blocked; nothing else can show a call
				// that does not return.
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
			}
			reqrepWantKind(t, "send at the bound", push.Send(ctx, make([]byte, tc.sizes[last])), tc.wantLast)
			if got := push.Dropped(); got != tc.wantDropped {
				t.Fatalf("dropped %d, want %d", got, tc.wantDropped)
			}
		})
	}
}

func TestSlowPullerBlocksPushers(t *testing.T) {
	const queue, budget = 2, 4
	srv := pushpullServe(t, weida.Config{EndpointQueue: queue, Limits: weida.Limits{MaxConcurrentUniStreams: budget}})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)

	// Nobody reads. Each send gets 200 ms; a send still waiting then is
	// taken as blocked — a bounded negative check, since nothing else can
	// show a call that does not return.
	probe := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	sent := 0
	var blocked error
	for blocked == nil && sent <= budget {
		if blocked = push.Send(probe(), []byte("job")); blocked == nil {
			sent++
		}
	}
	reqrepWantKind(t, "send to a stalled puller", blocked, weida.KindCanceled)
	if sent < queue || sent > budget {
		t.Fatalf("%d sends went through; want the queue (%d) filled and no more than the stream budget (%d)", sent, queue, budget)
	}
	_, err := push.Open(probe(), weida.TransferMeta{})
	reqrepWantKind(t, "open to a stalled puller", err, weida.KindCanceled)

	resumed := make(chan error, 1)
	go func() { resumed <- push.Send(ctxFor(t), []byte("job")) }()
	for n := range sent + 1 {
		if _, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil {
			t.Fatalf("recv %d: %v", n, err)
		}
	}
	if err := <-resumed; err != nil {
		t.Fatalf("send once the puller reads: %v", err)
	}
}

func TestPushWithoutPeerIsNotConnected(t *testing.T) {
	push := pushpullPusher(t, testRuntime(t), nil)
	reqrepWantKind(t, "send", push.Send(ctxFor(t), []byte("x")), weida.KindNotConnected)
	_, err := push.Open(ctxFor(t), weida.TransferMeta{})
	reqrepWantKind(t, "open", err, weida.KindNotConnected)
}

// pushpullPending finishes n messages whose receipts cannot resolve before
// the puller reads: the tail beyond the window and the FIN wait for it.
func pushpullPending(t *testing.T, push *weida.Pusher, n int) []*weida.Delivery {
	t.Helper()
	var receipts []*weida.Delivery
	for range n {
		out, err := push.Open(ctxFor(t), weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(reqrepPattern(pushpullWindow + 1000)); err != nil {
			t.Fatal(err)
		}
		d, err := out.Finish()
		if err != nil {
			t.Fatal(err)
		}
		receipts = append(receipts, d)
	}
	return receipts
}

func TestPushDrain(t *testing.T) {
	const pending = 8
	for _, tc := range []struct {
		name    string
		drain   time.Duration // 0: Shutdown instead
		read    bool          // the puller reads every message
		receipt weida.ErrorKind
		check   func(weida.Drained) bool
	}{
		{"shutdown cuts them short", 0, false, weida.KindIndeterminate,
			func(weida.Drained) bool { return true }},
		// The reads start only after Drain was called, but nothing outside
		// can order them after its first look at the receipts; eight
		// megabytes of reading leave that look ample time, so at least one
		// receipt resolves during the drain.
		{"drain delivers them", 10 * time.Second, true, 0,
			func(d weida.Drained) bool { return d.Delivered >= 1 && d.Outstanding == 0 }},
		{"drain against a puller that does not read", 300 * time.Millisecond, false, weida.KindIndeterminate,
			func(d weida.Drained) bool { return d.Delivered == 0 && d.Outstanding == pending }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := pushpullServe(t, weida.Config{})
			client := pushpullRuntime(t, weida.Config{})
			receipts := pushpullPending(t, pushpullPusher(t, client, nil, srv.url), pending)
			deadline := time.Now().Add(tc.drain)
			drained := make(chan weida.Drained, 1)
			go func() {
				if tc.drain == 0 {
					client.Shutdown()
					drained <- weida.Drained{}
					return
				}
				d, err := client.Drain(deadline)
				if err != nil {
					t.Errorf("drain: %v", err)
				}
				drained <- d
			}()
			for range pending {
				if !tc.read {
					break
				}
				in, err := srv.pull.RecvStream(ctxFor(t))
				if err != nil {
					t.Fatal(err)
				}
				// The close that ends the drain may cut the last reads once
				// the transport holds every byte: only the receipts count.
				_, _ = io.Copy(io.Discard, in)
			}
			d := <-drained
			if !tc.check(d) {
				t.Fatalf("drained %+v", d)
			}
			if !tc.read && tc.drain > 0 && time.Now().Before(deadline) {
				t.Fatal("the drain returned before its deadline with transfers outstanding")
			}
			for i, r := range receipts {
				reqrepWantKind(t, fmt.Sprintf("receipt %d", i), r.Delivered(ctxFor(t)), tc.receipt)
			}
		})
	}
}

func TestPullerClose(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	blocked := make(chan error, 1)
	go func() {
		_, _, err := srv.pull.Recv(ctxFor(t), 64)
		blocked <- err
	}()
	_ = srv.pull.Close()
	reqrepWantKind(t, "recv on a closed puller", <-blocked, weida.KindCanceled)
	err := push.Send(ctxFor(t), reqrepPattern(2*pushpullWindow))
	reqrepWantKind(t, "send after close", err, weida.KindUnknownEndpoint)
	if _, err := srv.b.Puller("/jobs"); err != nil {
		t.Fatalf("the path was not freed: %v", err)
	}
}

func TestPushPullGoroutinesReturnToBaseline(t *testing.T) {
	baseline := runtime.NumGoroutine()
	srv := pushpullServe(t, weida.Config{})
	client := pushpullRuntime(t, weida.Config{})
	push := client.Pusher(weida.TrustByAddress())
	if err := push.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	if err := push.Send(ctxFor(t), []byte("g")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil {
		t.Fatal(err)
	}
	_ = push.Close()
	_ = srv.pull.Close()
	client.Shutdown()
	srv.rt.Shutdown()
	reqrepSettleGoroutines(t, baseline)
}

// pusherInOutage is a pusher under cfg whose one peer has just gone: its
// sends meet the outbox (a fast redial keeps trying meanwhile).
func pusherInOutage(t *testing.T, cfg weida.Config) *weida.Pusher {
	t.Helper()
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, pushpullRuntime(t, cfg), []weida.EndpointOption{fastRedial()})
	events := push.Events()
	if err := push.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	srv.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)
	return push
}
