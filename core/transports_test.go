package weida_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// The transports tests (SURFACE.md §4.2 row `transports`): one body per
// pattern, run over QUIC, in process and over AF_UNIX. The datagram flow
// tests (flow_test.go) and the RADIO/DISH tests whose bodies hold on every
// transport (radio_test.go, radio_control_test.go, radio_layers_test.go)
// run through forEachTransport too; radio_local_test.go has what only
// local transports do (no supersession grace).

// testTransport binds a runtime on one transport.
type testTransport struct {
	name string
	bind func(t testing.TB, rt *weida.Runtime) *weida.Binding
}

var transports = []testTransport{
	{"quic", func(t testing.TB, rt *weida.Runtime) *weida.Binding { return bindLoopback(t, rt) }},
	{"inproc", bindTestInproc},
	{"unix", bindTestUnix},
}

// busSeq makes bus names unique across the tests of this process.
var busSeq atomic.Int64

func bindTestInproc(t testing.TB, rt *weida.Runtime) *weida.Binding {
	t.Helper()
	b, err := rt.Listener().BindInproc(fmt.Sprintf("test-bus-%d", busSeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bindTestUnix(t testing.TB, rt *weida.Runtime) *weida.Binding {
	t.Helper()
	b, err := rt.Listener().BindUnix(testSocketPath(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testSocketPath is a fresh socket path short enough for sun_path.
func testSocketPath(t testing.TB) string {
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "s.sock")
}

// forEachTransport runs body once per transport as a subtest.
func forEachTransport(t *testing.T, body func(t *testing.T, tr testTransport)) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { body(t, tr) })
	}
}

func TestTransportsReqRep(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		rt := testRuntime(t)
		b := tr.bind(t, rt)
		rep, err := b.Replier("/echo")
		if err != nil {
			t.Fatal(err)
		}
		answered := make(chan error, 1)
		go func() {
			for range 2 {
				r, err := rep.Accept(ctxFor(t), 4<<20)
				if err != nil {
					answered <- err
					return
				}
				if err := r.Reply(ctxFor(t), append([]byte("re: "), r.Payload()...)); err != nil {
					answered <- err
					return
				}
			}
			answered <- nil
		}()
		req := reqrepRequester(t, b.URL("/echo"))
		for _, body := range [][]byte{[]byte("small"), reqrepPattern(3 << 20)} {
			got, err := req.Request(ctxFor(t), body, 4<<20)
			if err != nil {
				t.Fatalf("request of %d bytes: %v", len(body), err)
			}
			if want := append([]byte("re: "), body...); string(got) != string(want) {
				t.Fatalf("reply of %d bytes differs from the %d expected", len(got), len(want))
			}
		}
		if err := <-answered; err != nil {
			t.Fatalf("replier: %v", err)
		}
	})
}

func TestTransportsPushPull(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		rt := testRuntime(t)
		b := tr.bind(t, rt)
		pull, err := b.Puller("/jobs")
		if err != nil {
			t.Fatal(err)
		}
		push := pushpullPusher(t, testRuntime(t), nil, b.URL("/jobs"))
		out, err := push.Open(ctxFor(t), weida.TransferMeta{})
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
		// Nobody has called Recv: the receipt is the peer transport's, not
		// the application's.
		if err := d.Delivered(ctxFor(t)); err != nil {
			t.Fatalf("receipt before Recv: %v", err)
		}
		if err := push.Send(ctxFor(t), []byte("job-2")); err != nil {
			t.Fatal(err)
		}
		// Streams are not ordered relative to each other.
		var got []string
		for range 2 {
			body, meta, err := pull.Recv(ctxFor(t), 64)
			if err != nil {
				t.Fatalf("recv: %v", err)
			}
			if ep, _ := meta.Endpoint(); ep != "/jobs" {
				t.Fatalf("endpoint %q", ep)
			}
			got = append(got, string(body))
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"job-1", "job-2"}) {
			t.Fatalf("received %q", got)
		}
	})
}

func TestTransportsPubSub(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		rt := testRuntime(t)
		b := tr.bind(t, rt)
		pub, err := b.Publisher("/prices")
		if err != nil {
			t.Fatal(err)
		}
		srv := &pubsubServer{rt: rt, b: b, pub: pub, path: "/prices"}
		sub := pubsubSubscribe(t, srv, "eu.#")
		if n := pubsubPublishPromptly(t, pub, "us.nyse", []byte("no")); n != 0 {
			t.Fatalf("a non-matching topic reached %d subscribers", n)
		}
		if n := pubsubPublishPromptly(t, pub, "eu.xetra", []byte("yes")); n != 1 {
			t.Fatalf("published to %d subscribers, want 1", n)
		}
		body, meta, err := sub.Recv(ctxFor(t), 64)
		if err != nil || string(body) != "yes" {
			t.Fatalf("recv %q, %v", body, err)
		}
		if topic, _ := meta.Topic(); topic != "eu.xetra" {
			t.Fatalf("topic %q", topic)
		}
	})
}

// TestTransportsPeerLossIsConnectionLost: a transfer still being written
// when the peer's runtime goes away fails ConnectionLost, on every
// transport.
func TestTransportsPeerLossIsConnectionLost(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		srvRT := runtimeWith(t, weida.Config{})
		b := tr.bind(t, srvRT)
		pull, err := b.Puller("/jobs")
		if err != nil {
			t.Fatal(err)
		}
		push := pushpullPusher(t, testRuntime(t), []weida.EndpointOption{weida.WithReconnect(weida.ReconnectPolicy{Never: true})}, b.URL("/jobs"))
		out, err := push.Open(ctxFor(t), weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write([]byte("partial")); err != nil {
			t.Fatal(err)
		}
		// The transfer must have reached the puller before the shutdown: a
		// stream the server has not dispatched yet is refused with
		// STOP_SENDING(SHUTDOWN) while it drains (PROTOCOL.md §11.8), a
		// Rejected, not the connection loss this test is about.
		if _, err := pull.RecvStream(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		srvRT.Shutdown()
		ctx, cancel := context.WithTimeout(ctxFor(t), 10*time.Second)
		defer cancel()
		// Writing until the loss surfaces: over QUIC the close arrives
		// asynchronously, so the first writes may still be buffered.
		chunk := make([]byte, 64<<10)
		for ctx.Err() == nil {
			if _, err = out.Write(chunk); err != nil {
				break
			}
		}
		if !errors.Is(err, weida.ErrConnectionLost) {
			t.Fatalf("write after the peer went away: %v, want ConnectionLost", err)
		}
	})
}

// TestTransportsGuaranteesReassemble: PerProducer(reassemble) hands a
// producer's messages over in the order it sent them on every transport,
// although streams race each other (on local transports, one goroutine
// per stream).
func TestTransportsGuaranteesReassemble(t *testing.T) {
	const n = 32
	cfg := weida.Config{Guarantees: seqReassemble}
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		b := tr.bind(t, runtimeWith(t, cfg))
		pull, err := b.Puller("/jobs")
		if err != nil {
			t.Fatal(err)
		}
		push := pushpullPusher(t, runtimeWith(t, cfg), nil, b.URL("/jobs"))
		for i := range n {
			if err := push.Send(ctxFor(t), []byte(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			body, meta, err := pull.Recv(ctxFor(t), 64)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := meta.Sequence(); !ok || s != uint64(i) || string(body) != fmt.Sprint(i) {
				t.Fatalf("message %d: sequence %d (%v), body %q", i, s, ok, body)
			}
		}
	})
}

// TestTransportsDrainLetsTheReaderFinish: a drain closes only once the
// peer application consumed what was finished, so every message is read
// whole although the reading starts beside the drain; nothing is
// outstanding.
func TestTransportsDrainLetsTheReaderFinish(t *testing.T) {
	const n = 8
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		b := tr.bind(t, testRuntime(t))
		pull, err := b.Puller("/jobs")
		if err != nil {
			t.Fatal(err)
		}
		client := runtimeWith(t, weida.Config{})
		push := pushpullPusher(t, client, nil, b.URL("/jobs"))
		body := reqrepPattern(64 << 10)
		for range n {
			if err := push.Send(ctxFor(t), body); err != nil {
				t.Fatal(err)
			}
		}
		drained := make(chan weida.Drained, 1)
		go func() {
			d, err := client.Drain(time.Now().Add(10 * time.Second))
			if err != nil {
				t.Errorf("drain: %v", err)
			}
			drained <- d
		}()
		for i := range n {
			got, _, err := pull.Recv(ctxFor(t), 1<<20)
			if err != nil || len(got) != len(body) {
				t.Fatalf("message %d: %d bytes, %v", i, len(got), err)
			}
		}
		if d := <-drained; d.Outstanding != 0 {
			t.Fatalf("drained %+v, want nothing outstanding", d)
		}
	})
}

// TestTransportsPairAndSurvey: the symmetric and the scatter-gather
// patterns over every transport — a pair talks both ways (the bound end
// opens toward the dialler, over a parked reverse connection on AF_UNIX),
// and a survey collects its respondents' answers.
func TestTransportsPairAndSurvey(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		b := tr.bind(t, testRuntime(t))
		bound, err := b.Pair("/pair")
		if err != nil {
			t.Fatal(err)
		}
		dialling := testRuntime(t).Pair(weida.TrustByAddress())
		if err := dialling.Connect(ctxFor(t), b.URL("/pair")); err != nil {
			t.Fatal(err)
		}
		if err := dialling.Send(ctxFor(t), []byte("hello bound")); err != nil {
			t.Fatal(err)
		}
		if got, _, err := bound.Recv(ctxFor(t), 64); err != nil || string(got) != "hello bound" {
			t.Fatalf("bound end received %q, %v", got, err)
		}
		if err := bound.Send(ctxFor(t), []byte("hello dialler")); err != nil {
			t.Fatal(err)
		}
		if got, _, err := dialling.Recv(ctxFor(t), 64); err != nil || string(got) != "hello dialler" {
			t.Fatalf("dialling end received %q, %v", got, err)
		}

		resp, err := b.Respondent("/vote")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if q, err := resp.Accept(ctxFor(t), 64); err == nil {
				_ = q.Reply(ctxFor(t), append([]byte("yes to "), q.Payload()...))
			}
		}()
		s := testRuntime(t).Surveyor(weida.TrustByAddress())
		if err := s.Connect(ctxFor(t), b.URL("/vote")); err != nil {
			t.Fatal(err)
		}
		survey, err := s.Survey(ctxFor(t), []byte("lunch"), 10*time.Second, 64)
		if err != nil {
			t.Fatal(err)
		}
		if len(survey.Replies) != 1 || string(survey.Replies[0]) != "yes to lunch" {
			t.Fatalf("survey replies %q", survey.Replies)
		}
	})
}

// TestTransportsReplyDroppedStopsTheReplier: a requester that drops the
// reply half cancels the exchange on every transport — Canceled fires at
// the replier and its reply fails Canceled (over AF_UNIX the requester
// closes its socket; there is no STOP_SENDING).
func TestTransportsReplyDroppedStopsTheReplier(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		b := tr.bind(t, testRuntime(t))
		rep, err := b.Replier("/x")
		if err != nil {
			t.Fatal(err)
		}
		req := reqrepRequester(t, b.URL("/x"))
		out, reply, err := req.Open(ctxFor(t), weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write([]byte("work")); err != nil {
			t.Fatal(err)
		}
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
	})
}
