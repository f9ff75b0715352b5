package weida_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// reqrepBind starts a runtime under cfg bound on loopback with a fresh identity.
func reqrepBind(t *testing.T, cfg weida.Config) (*weida.Runtime, *weida.Binding) {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := bindLoopback(t, rt)
	return rt, b
}

// reqrepServe starts a server with a replier at path.
func reqrepServe(t *testing.T, path string) (*weida.Runtime, *weida.Binding, *weida.Replier) {
	t.Helper()
	rt, b := reqrepBind(t, weida.Config{})
	rep, err := b.Replier(path)
	if err != nil {
		t.Fatal(err)
	}
	return rt, b, rep
}

// reqrepRequester is a requester of its own runtime connected to every url.
func reqrepRequester(t *testing.T, urls ...string) *weida.Requester {
	t.Helper()
	r := testRuntime(t).Requester(weida.TrustByAddress())
	t.Cleanup(func() { _ = r.Close() })
	for _, url := range urls {
		if err := r.Connect(ctxFor(t), url); err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
	}
	return r
}

// reqrepAnswer runs one replier action on its own goroutine; the channel
// yields what the action returned.
func reqrepAnswer(t *testing.T, rep *weida.Replier, act func(context.Context, *weida.Replier) error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- act(ctxFor(t), rep) }()
	return done
}

// reqrepPattern is n bytes that differ from their neighbours, so a
// misplaced or dropped chunk cannot compare equal.
func reqrepPattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// reqrepSettleGoroutines waits for the goroutine count to fall back to
// baseline. Goroutines end asynchronously after Shutdown and nothing signals
// the last one, so this polls, bounded: the one wait on time in these tests.
func reqrepSettleGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines remain, baseline %d:\n%s", runtime.NumGoroutine(), baseline, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func reqrepWantKind(t *testing.T, what string, err error, kind weida.ErrorKind) {
	t.Helper()
	if kind == 0 {
		if err != nil {
			t.Fatalf("%s: %v, want success", what, err)
		}
		return
	}
	if weida.KindOf(err) != kind {
		t.Fatalf("%s: %v, want %s", what, err, kind)
	}
}

func TestReqRepEchoRoundTripWithReceipt(t *testing.T) {
	_, b, rep := reqrepServe(t, "/echo")
	req := reqrepRequester(t, b.URL("/echo"))
	seen := make(chan weida.IncomingMeta, 1)
	answered := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		r, err := rep.Accept(ctx, 1<<10)
		if err != nil {
			return err
		}
		seen <- r.Meta()
		return r.Reply(ctx, r.Payload())
	})

	out, reply, err := req.Open(ctxFor(t), weida.TransferMeta{ContentType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("hello replier")); err != nil {
		t.Fatal(err)
	}
	delivery, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	in, err := reply.Recv(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := in.Collect(1 << 10); err != nil || string(got) != "hello replier" {
		t.Fatalf("reply %q, %v", got, err)
	}
	if _, ok := in.Meta().Endpoint(); ok {
		t.Fatal("a reply half carries no endpoint")
	}
	if err := delivery.Delivered(ctxFor(t)); err != nil {
		t.Fatalf("request receipt: %v", err)
	}
	if err := <-answered; err != nil {
		t.Fatalf("replier: %v", err)
	}
	m := <-seen
	if ep, _ := m.Endpoint(); ep != "/echo" {
		t.Fatalf("request endpoint %q", ep)
	}
	if ct, _ := m.ContentType(); ct != "text/plain" {
		t.Fatalf("request content type %q", ct)
	}
}

func TestRequestOutcomes(t *testing.T) {
	_, b, rep := reqrepServe(t, "/x")
	req := reqrepRequester(t, b.URL("/x"))
	cases := []struct {
		name      string
		maxReply  int64
		answer    func(context.Context, *weida.Replier) error
		want      string
		wantErr   weida.ErrorKind
		replierIs weida.ErrorKind // what the replier's last call returned
	}{
		{name: "reply", maxReply: 64, want: "PING", answer: func(ctx context.Context, rep *weida.Replier) error {
			r, err := rep.Accept(ctx, 64)
			if err != nil {
				return err
			}
			return r.Reply(ctx, bytes.ToUpper(r.Payload()))
		}},
		{name: "refused", maxReply: 64, wantErr: weida.KindRejected, answer: func(ctx context.Context, rep *weida.Replier) error {
			r, err := rep.Accept(ctx, 64)
			if err != nil {
				return err
			}
			return r.Refuse()
		}},
		{name: "dropped unanswered", maxReply: 64, wantErr: weida.KindNoReply, answer: func(ctx context.Context, rep *weida.Replier) error {
			r, err := rep.Accept(ctx, 64)
			if err != nil {
				return err
			}
			return r.Close()
		}},
		{name: "answered twice", maxReply: 64, want: "first", replierIs: weida.KindNoReply, answer: func(ctx context.Context, rep *weida.Replier) error {
			r, err := rep.Accept(ctx, 64)
			if err != nil {
				return err
			}
			if err := r.Reply(ctx, []byte("first")); err != nil {
				return err
			}
			if err := r.Refuse(); weida.KindOf(err) != weida.KindNoReply {
				return fmt.Errorf("refuse after reply: %v, want NoReply", err)
			}
			return r.Reply(ctx, []byte("second"))
		}},
		// 4 MiB cannot fit the 1 MiB the requester reads plus its 1 MiB
		// window, so the replier certainly sees the stop.
		{name: "reply above the ceiling", maxReply: 1 << 20, wantErr: weida.KindLimitExceeded, replierIs: weida.KindRejected,
			answer: func(ctx context.Context, rep *weida.Replier) error {
				r, err := rep.Accept(ctx, 64)
				if err != nil {
					return err
				}
				return r.Reply(ctx, reqrepPattern(4<<20))
			}},
		{name: "replier resets its reply", maxReply: 64, wantErr: weida.KindCanceled, answer: func(ctx context.Context, rep *weida.Replier) error {
			ex, err := rep.AcceptStream(ctx)
			if err != nil {
				return err
			}
			if _, err := ex.Request().Collect(64); err != nil {
				return err
			}
			out, err := ex.Reply(weida.TransferMeta{})
			if err != nil {
				return err
			}
			_, _ = out.Write([]byte("partial"))
			out.Cancel()
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			answered := reqrepAnswer(t, rep, tc.answer)
			got, err := req.Request(ctxFor(t), []byte("ping"), tc.maxReply)
			reqrepWantKind(t, "request", err, tc.wantErr)
			if err == nil && string(got) != tc.want {
				t.Fatalf("reply %q, want %q", got, tc.want)
			}
			if tc.wantErr == weida.KindNoReply && weida.IsDefiniteFailure(err) {
				t.Fatal("NoReply must not be a definite failure: the request may have had an effect")
			}
			reqrepWantKind(t, "replier", <-answered, tc.replierIs)
		})
	}
}

func TestRequestRefusedByDispatch(t *testing.T) {
	rt, b := reqrepBind(t, weida.Config{})
	if _, err := rt.Listener().Puller("/pull"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want weida.ErrorKind
	}{
		{"/nowhere", weida.KindUnknownEndpoint},
		{"/pull", weida.KindUnsupported},
	} {
		t.Run(tc.path, func(t *testing.T) {
			req := reqrepRequester(t, b.URL(tc.path))
			_, err := req.Request(ctxFor(t), []byte("q"), 64)
			reqrepWantKind(t, "request", err, tc.want)
			if !weida.IsDefiniteFailure(err) {
				t.Fatalf("%v must be definite", err)
			}
			if req.PeerCount() != 1 {
				t.Fatal("a refusal must not cost the connection")
			}
		})
	}
}

func TestRequestStreamsBothWaysAtOnce(t *testing.T) {
	_, b, rep := reqrepServe(t, "/echo")
	req := reqrepRequester(t, b.URL("/echo"))
	// The replier echoes each piece as it arrives. With 4 MiB each way and
	// 1 MiB stream windows, a requester that wrote its whole request before
	// reading would stall this copy after a window and the exchange would
	// never end: completing proves the reply streamed back while the request
	// was still being written.
	answered := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		ex, err := rep.AcceptStream(ctx)
		if err != nil {
			return err
		}
		out, err := ex.Reply(weida.TransferMeta{})
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, ex.Request()); err != nil {
			return err
		}
		_, err = out.Finish()
		return err
	})
	payload := reqrepPattern(4 << 20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := req.Request(ctx, payload, 4<<20)
	if err != nil {
		t.Fatalf("4 MiB each way: %v", err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("echo differs: %d bytes back", len(got))
	}
	if err := <-answered; err != nil {
		t.Fatalf("replier: %v", err)
	}
}

func TestRequestCanceledMidTransfer(t *testing.T) {
	_, b, rep := reqrepServe(t, "/slow")
	req := reqrepRequester(t, b.URL("/slow"))
	started, resume := make(chan struct{}), make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		ex, err := rep.AcceptStream(ctxFor(t))
		if err != nil {
			readErr <- err
			return
		}
		if _, err := io.ReadFull(ex.Request(), make([]byte, 64<<10)); err != nil {
			readErr <- err
			return
		}
		close(started)
		<-resume
		// io.Copy returns nil at EOF: only the reset may end this read.
		_, err = io.Copy(io.Discard, ex.Request())
		readErr <- err
	}()

	ctx, cancel := context.WithCancel(ctxFor(t))
	result := make(chan error, 1)
	go func() {
		// 8 MiB is far beyond what the replier let in, so the cancel
		// certainly lands before the request's FIN.
		_, err := req.Request(ctx, reqrepPattern(8<<20), 64)
		result <- err
	}()
	select {
	case <-started:
	case err := <-readErr:
		t.Fatalf("replier: %v", err)
	}
	cancel()
	reqrepWantKind(t, "canceled request", <-result, weida.KindCanceled)
	close(resume)
	if err := <-readErr; !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("replier's read of a canceled request: %v, want Canceled (never EOF)", err)
	}
}

func TestReplyDroppedStopsTheReplier(t *testing.T) {
	_, b, rep := reqrepServe(t, "/x")
	req := reqrepRequester(t, b.URL("/x"))
	out, reply, err := req.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("work"))
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = reply.Close()

	r, err := rep.Accept(ctxFor(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Canceled():
	case <-ctxFor(t).Done():
		t.Fatal("Canceled() did not close after the requester dropped the reply")
	}
	reqrepWantKind(t, "reply to a dropped exchange", r.Reply(ctxFor(t), []byte("late")), weida.KindCanceled)
}

func TestReplyCarriesTheRequestTrace(t *testing.T) {
	const (
		requestTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		requestState = "vendor=abc"
		ownTrace     = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	)
	_, b, rep := reqrepServe(t, "/trace")
	req := reqrepRequester(t, b.URL("/trace"))
	for _, tc := range []struct {
		name                 string
		replyMeta            weida.TransferMeta
		wantTrace, wantState string
	}{
		{"defaults to the request's", weida.TransferMeta{}, requestTrace, requestState},
		{"the replier's own wins", weida.TransferMeta{Traceparent: ownTrace}, ownTrace, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answered := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
				r, err := rep.Accept(ctx, 64)
				if err != nil {
					return err
				}
				if tp, _ := r.Meta().Traceparent(); tp != requestTrace {
					return fmt.Errorf("request traceparent %q", tp)
				}
				return r.ReplyWith(ctx, tc.replyMeta, []byte("a"))
			})
			meta := weida.TransferMeta{Traceparent: requestTrace, Tracestate: requestState}
			_, m, err := req.RequestWith(ctxFor(t), meta, []byte("q"), 64)
			if err != nil {
				t.Fatal(err)
			}
			if err := <-answered; err != nil {
				t.Fatal(err)
			}
			tp, _ := m.Traceparent()
			ts, _ := m.Tracestate()
			if tp != tc.wantTrace || ts != tc.wantState {
				t.Fatalf("reply trace %q / %q, want %q / %q", tp, ts, tc.wantTrace, tc.wantState)
			}
		})
	}
}

func TestRequestWithoutPeerIsNotConnected(t *testing.T) {
	req := testRuntime(t).Requester(weida.TrustByAddress())
	defer req.Close()
	_, err := req.Request(ctxFor(t), []byte("q"), 64)
	reqrepWantKind(t, "request", err, weida.KindNotConnected)
	_, _, err = req.Open(ctxFor(t), weida.TransferMeta{})
	reqrepWantKind(t, "open", err, weida.KindNotConnected)
}

func TestRequestWhenTheReplierDies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		request  []byte
		act      func(context.Context, *weida.Replier) error // returns once the replier has read what it will
		want     weida.ErrorKind
		definite bool
	}{
		{"before the request's FIN", reqrepPattern(8 << 20), func(ctx context.Context, rep *weida.Replier) error {
			ex, err := rep.AcceptStream(ctx)
			if err == nil {
				_, err = io.ReadFull(ex.Request(), make([]byte, 64<<10))
			}
			return err
		}, weida.KindConnectionLost, true},
		{"after the request's FIN", []byte("are you there?"), func(ctx context.Context, rep *weida.Replier) error {
			_, err := rep.Accept(ctx, 64) // read whole, never answered
			return err
		}, weida.KindIndeterminate, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, b, rep := reqrepServe(t, "/dies")
			req := reqrepRequester(t, b.URL("/dies"))
			read := reqrepAnswer(t, rep, tc.act)
			result := make(chan error, 1)
			go func() {
				_, err := req.Request(ctxFor(t), tc.request, 64)
				result <- err
			}()
			if err := <-read; err != nil {
				t.Fatalf("replier: %v", err)
			}
			srv.Shutdown()
			err := <-result
			reqrepWantKind(t, "request", err, tc.want)
			if weida.IsDefiniteFailure(err) != tc.definite {
				t.Fatalf("%v: definite = %v, want %v", err, !tc.definite, tc.definite)
			}
		})
	}
}

func TestReplierRefusesAnOversizeRequestAndMovesOn(t *testing.T) {
	_, b, rep := reqrepServe(t, "/small")
	req := reqrepRequester(t, b.URL("/small"))
	accepted := make(chan *weida.Request, 1)
	acceptErr := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		r, err := rep.Accept(ctx, 1<<10)
		if err == nil {
			accepted <- r
		}
		return err
	})
	_, err := req.Request(ctxFor(t), reqrepPattern(4<<10), 64)
	reqrepWantKind(t, "oversize request", err, weida.KindRejected)

	result := make(chan error, 1)
	go func() {
		got, err := req.Request(ctxFor(t), []byte("fits"), 64)
		if err == nil && string(got) != "ok" {
			err = fmt.Errorf("reply %q", got)
		}
		result <- err
	}()
	if err := <-acceptErr; err != nil {
		t.Fatalf("one oversize request failed the replier: %v", err)
	}
	r := <-accepted
	if string(r.Payload()) != "fits" {
		t.Fatalf("accepted %q, want the next request", r.Payload())
	}
	if err := r.Reply(ctxFor(t), []byte("ok")); err != nil {
		t.Fatal(err)
	}
	if err := <-result; err != nil {
		t.Fatal(err)
	}
}

func TestReqRepRoundRobinOverTwoRepliers(t *testing.T) {
	var urls []string
	for _, name := range []string{"a", "b"} {
		_, b, rep := reqrepServe(t, "/rr")
		urls = append(urls, b.URL("/rr"))
		go func() {
			for {
				r, err := rep.Accept(context.Background(), 64)
				if err != nil {
					return // the runtime shut down
				}
				_ = r.Reply(context.Background(), []byte(name))
			}
		}()
	}
	req := reqrepRequester(t, urls...)
	var got []string
	for range 4 {
		body, err := req.Request(ctxFor(t), []byte("who?"), 64)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(body))
	}
	if got[0] == got[1] || got[0] != got[2] || got[1] != got[3] {
		t.Fatalf("answers %v, want the two repliers alternating", got)
	}
}

func TestReplierClose(t *testing.T) {
	rt, b, rep := reqrepServe(t, "/closing")
	req := reqrepRequester(t, b.URL("/closing"))
	blocked := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		_, err := rep.Accept(ctx, 64)
		return err
	})
	_ = rep.Close()
	reqrepWantKind(t, "accept on a closed replier", <-blocked, weida.KindCanceled)
	_, err := req.Request(ctxFor(t), []byte("q"), 64)
	reqrepWantKind(t, "request after close", err, weida.KindUnknownEndpoint)
	if _, err := rt.Listener().Replier("/closing"); err != nil {
		t.Fatalf("the path was not freed: %v", err)
	}
}

func TestReqRepGoroutinesReturnToBaseline(t *testing.T) {
	baseline := runtime.NumGoroutine()
	srv, b, rep := reqrepServe(t, "/g")
	client := testRuntime(t)
	req := client.Requester(weida.TrustByAddress())
	if err := req.Connect(ctxFor(t), b.URL("/g")); err != nil {
		t.Fatal(err)
	}
	answered := reqrepAnswer(t, rep, func(ctx context.Context, rep *weida.Replier) error {
		r, err := rep.Accept(ctx, 64)
		if err != nil {
			return err
		}
		return r.Reply(ctx, r.Payload())
	})
	if _, err := req.Request(ctxFor(t), []byte("g"), 64); err != nil {
		t.Fatal(err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	_ = req.Close()
	_ = rep.Close()
	client.Shutdown()
	srv.Shutdown()
	reqrepSettleGoroutines(t, baseline)
}

// TestRequestCanceledAwaitingReply cancels a request whose replier took it
// whole but never answers: the requester sees Canceled and the replier sees
// the reply abandoned, both for a small request (written on the caller's
// goroutine) and for one large enough to be written on its own.
func TestRequestCanceledAwaitingReply(t *testing.T) {
	for _, size := range []int{64, 64 << 10} {
		t.Run(fmt.Sprintf("%d bytes", size), func(t *testing.T) {
			_, b, rep := reqrepServe(t, "/silent")
			req := reqrepRequester(t, b.URL("/silent"))
			taken := make(chan *weida.Request, 1)
			go func() {
				r, err := rep.Accept(ctxFor(t), int64(size))
				if err != nil {
					t.Errorf("accept: %v", err)
					close(taken)
					return
				}
				taken <- r
			}()
			ctx, cancel := context.WithCancel(ctxFor(t))
			result := make(chan error, 1)
			go func() {
				_, err := req.Request(ctx, reqrepPattern(size), 64)
				result <- err
			}()
			r, ok := <-taken
			if !ok {
				t.FailNow()
			}
			if got := len(r.Payload()); got != size {
				t.Fatalf("the replier took %d bytes, want %d", got, size)
			}
			cancel()
			reqrepWantKind(t, "request canceled while awaiting its reply", <-result, weida.KindCanceled)
			select {
			case <-r.Canceled():
			case <-ctxFor(t).Done():
				t.Fatal("Canceled() did not close after the requester abandoned the reply")
			}
		})
	}
}

// TestReplyCanceledByItsContext ends the replier's context while its reply
// is stuck on flow control (the requester reads one byte and stops): Reply
// returns Canceled and the requester's read ends in the reset, never EOF.
// Accept and Reply share the context, as a server loop's calls do.
func TestReplyCanceledByItsContext(t *testing.T) {
	_, b, rep := reqrepServe(t, "/stuck")
	req := reqrepRequester(t, b.URL("/stuck"))
	out, reply, err := req.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("go")); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	r, err := rep.Accept(ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	replied := make(chan error, 1)
	// Far beyond the 1 MiB stream window the requester never reopens.
	go func() { replied <- r.Reply(ctx, reqrepPattern(8<<20)) }()

	in, err := reply.Recv(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(in, make([]byte, 1)); err != nil { // the reply is being written
		t.Fatal(err)
	}
	cancel()
	reqrepWantKind(t, "reply under an ended context", <-replied, weida.KindCanceled)
	if _, err := io.Copy(io.Discard, in); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("the requester's read of a reset reply: %v, want Canceled (never EOF)", err)
	}
}
