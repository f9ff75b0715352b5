package weida_test

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
)

// The server side of NOT_LEADER, seen by a bare quic-go peer (the helpers
// of cursors_raw_test.go): the exact frames and codes a cluster node's
// refusals put on the wire.

// leaderRawExchange opens an exchange to path carrying payload, finished
// when fin (unfinished, only the node's STOP_SENDING can end the request
// half).
func leaderRawExchange(t *testing.T, qc *quic.Conn, path string, payload []byte, fin bool) *quic.Stream {
	t.Helper()
	s, err := qc.OpenStreamSync(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	d := wire.Data{Endpoint: wire.Some(path)}
	if _, err := s.Write(append(wire.AppendFrame(nil, wire.KindData, &d), payload...)); err != nil {
		t.Fatal(err)
	}
	if fin {
		_ = s.Close()
	}
	return s
}

// leaderReply reads the reply half's frame and checks the FIN follows
// what rest says comes after it.
func leaderReply(t *testing.T, s *quic.Stream) (wire.Kind, []byte, []byte) {
	t.Helper()
	kind, hdr, err := wire.ReadHeader(s, wire.DefaultMaxHeaderBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(s)
	if err != nil {
		t.Fatalf("reply half after its header: %v", err)
	}
	return kind, hdr, rest
}

// leaderBidiStopCode waits until the peer stops the request half of s.
func leaderBidiStopCode(t *testing.T, s *quic.Stream) wire.AppCode {
	t.Helper()
	select {
	case <-s.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the request half was not stopped")
	}
	var se *quic.StreamError
	if cause := context.Cause(s.Context()); !errors.As(cause, &se) || !se.Remote {
		t.Fatalf("request half ended by %v, want the peer's STOP_SENDING", cause)
	}
	return wire.AppCode(se.ErrorCode)
}

// nextExchange waits for the port's next event and checks it is an exchange.
func nextExchange(t *testing.T, p *weida.QueuePort) *weida.IncomingExchange {
	t.Helper()
	ev := portEvent(t, p)
	if ev.Kind != weida.PortExchange {
		t.Fatalf("event %v, want an exchange", ev.Kind)
	}
	return ev.Exchange
}

const testLeaderURL = "weida://sha256:0001020304050607080910111213141516171819202122232425262728293031@127.0.0.1:7443/q"

func TestRefuseNotLeaderAnswersErrorSixAndStopsTen(t *testing.T) {
	b, port := servePort(t, "/q")
	qc := cursorsRawPeer(t, b.URL("/q"))
	for _, v := range []struct {
		leader string
		want   wire.ErrorFrame
	}{
		{testLeaderURL, wire.ErrorFrame{Code: 6, Leader: wire.Some(testLeaderURL), Term: wire.Some[uint64](7)}},
		{"", wire.ErrorFrame{Code: 6, Term: wire.Some[uint64](7)}}, // no leader known: key 1 left out
	} {
		s := leaderRawExchange(t, qc, "/q", []byte("body"), false)
		ex := nextExchange(t, port)
		if err := ex.RefuseNotLeader(v.leader, 7); err != nil {
			t.Fatal(err)
		}
		if err := ex.RefuseNotLeader(v.leader, 7); !errors.Is(err, weida.ErrNoReply) {
			t.Fatalf("second answer: %v, want NoReply", err)
		}
		kind, hdr, rest := leaderReply(t, s)
		f, err := wire.DecodeError(hdr)
		if kind != wire.KindError || err != nil || f != v.want || len(rest) != 0 {
			t.Fatalf("reply %v %+v (%v) then %d bytes, want ERROR %+v + FIN", kind, f, err, len(rest), v.want)
		}
		if code := leaderBidiStopCode(t, s); code != wire.CodeNotLeader {
			t.Fatalf("request half stopped with %v, want NOT_LEADER", code)
		}
	}
	if err := nextExchangeOf(t, qc, port).RefuseNotLeader(string(make([]byte, weida.CapLeaderURL+1)), 1); err == nil {
		t.Fatal("a leader URL past the cap was put on the wire")
	}
}

// nextExchangeOf sends an exchange to /q and returns it as the port sees it.
func nextExchangeOf(t *testing.T, qc *quic.Conn, port *weida.QueuePort) *weida.IncomingExchange {
	t.Helper()
	leaderRawExchange(t, qc, "/q", nil, true)
	return nextExchange(t, port)
}

func TestRequesterSeesNotLeaderWithTheLeaderAndTerm(t *testing.T) {
	b, port := servePort(t, "/q")
	go func() {
		for ev := range port.Events() {
			if ev.Kind == weida.PortExchange {
				_ = ev.Exchange.RefuseNotLeader(testLeaderURL, 42)
			}
		}
	}()
	r := testRuntime(t).Requester(weida.TrustByAddress())
	if err := r.Connect(ctxFor(t), b.URL("/q")); err != nil {
		t.Fatal(err)
	}
	// A streamed request is not sent again (redirect_request_test.go): the
	// refusal surfaces as it came.
	out, reply, err := r.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("job"))
	_, _ = out.Finish()
	_, err = reply.Recv(ctxFor(t))
	var nl *weida.NotLeaderError
	if !errors.Is(err, weida.ErrRejected) || !errors.As(err, &nl) {
		t.Fatalf("request: %v, want Rejected carrying NOT_LEADER", err)
	}
	if nl.Leader != testLeaderURL || nl.Term != 42 || !nl.HasTerm {
		t.Fatalf("NOT_LEADER detail %+v", nl)
	}
}

func TestTransferRefuseNotLeaderStopsTen(t *testing.T) {
	b, port := servePort(t, "/q")
	qc := cursorsRawPeer(t, b.URL("/q"))
	d := wire.Data{Endpoint: wire.Some("/q")}
	s := cursorsRawStream(t, qc, append(wire.AppendFrame(nil, wire.KindData, &d), "body"...), false)
	ev := portEvent(t, port)
	if ev.Kind != weida.PortTransfer {
		t.Fatalf("event %v, want a transfer", ev.Kind)
	}
	if err := ev.Transfer.RefuseNotLeader(); err != nil {
		t.Fatal(err)
	}
	if code := cursorsStopCode(t, s); code != wire.CodeNotLeader {
		t.Fatalf("transfer stopped with %v, want NOT_LEADER", code)
	}
}

func TestLeaderGateStopsSubscribeAndCreditWithTen(t *testing.T) {
	b, port := servePort(t, "/q")
	var leads atomic.Bool
	port.SetLeaderGate(leads.Load)
	port.SetSubscribeGate(func(weida.PortConn, string) bool { return true })
	qc := cursorsRawPeer(t, b.URL("/q"))
	sub := wire.Subscribe{Endpoint: "/q", Filter: "a"}
	credit := wire.Credit{Endpoint: "/q", Filter: "a", Limit: 5}
	// Unfinished, so that only the node's STOP_SENDING can end them.
	subscribe := func() *quic.SendStream {
		return cursorsRawStream(t, qc, wire.AppendFrame(nil, wire.KindSubscribe, &sub), false)
	}
	grant := func() *quic.SendStream {
		return cursorsRawStream(t, qc, wire.AppendFrame(nil, wire.KindCredit, &credit), false)
	}
	if code := cursorsStopCode(t, subscribe()); code != wire.CodeNotLeader {
		t.Fatalf("SUBSCRIBE stopped with %v, want NOT_LEADER", code)
	}
	if code := cursorsStopCode(t, grant()); code != wire.CodeNotLeader {
		t.Fatalf("CREDIT stopped with %v, want NOT_LEADER", code)
	}
	// The leader gate is judged before the subscribe gate.
	port.SetSubscribeGate(func(weida.PortConn, string) bool { return false })
	if code := cursorsStopCode(t, subscribe()); code != wire.CodeNotLeader {
		t.Fatalf("SUBSCRIBE under both gates stopped with %v, want NOT_LEADER", code)
	}
	port.SetSubscribeGate(nil)
	leads.Store(true)
	// Leading now: the refused frames never became events, so the next ones are these.
	_ = subscribe().Close()
	if ev := portEvent(t, port); ev.Kind != weida.PortSubscribe || ev.Filter != "a" {
		t.Fatalf("event %v %q, want the SUBSCRIBE sent once leading", ev.Kind, ev.Filter)
	}
	_ = grant().Close()
	if ev := portEvent(t, port); ev.Kind != weida.PortCredit || ev.Limit != 5 {
		t.Fatalf("event %v, want the CREDIT sent once leading", ev.Kind)
	}
}

func TestCloseNotLeaderClosesWithTen(t *testing.T) {
	b, port := servePort(t, "/q")
	qc := cursorsRawPeer(t, b.URL("/q"))
	sub := wire.Subscribe{Endpoint: "/q", Filter: "a"}
	cursorsRawStream(t, qc, wire.AppendFrame(nil, wire.KindSubscribe, &sub), true)
	ev := portEvent(t, port)
	if ev.Kind != weida.PortSubscribe {
		t.Fatalf("event %v, want subscribe", ev.Kind)
	}
	ev.Conn.CloseNotLeader()
	if code := cursorsCloseCode(t, qc); code != wire.CodeNotLeader {
		t.Fatalf("closed with %v, want NOT_LEADER", code)
	}
	if ev := portEvent(t, port); ev.Kind != weida.PortConnGone {
		t.Fatalf("event %v, want the connection's end", ev.Kind)
	}
}

func TestLeaderPortServesTheReservedPathOnly(t *testing.T) {
	b, _ := servePort(t, "/q")
	for _, claim := range []func() error{
		func() error { _, err := b.QueuePort(weida.LeaderPath); return err },
		func() error { _, err := b.Replier(weida.LeaderPath); return err },
	} {
		if err := claim(); !errors.Is(err, weida.ErrInvalidEndpointPath) {
			t.Fatalf("a user endpoint at %s: %v, want InvalidEndpointPath", weida.LeaderPath, err)
		}
	}
	lp, err := b.LeaderPort()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LeaderPort(); !errors.Is(err, weida.ErrAlreadyRegistered) {
		t.Fatalf("second LeaderPort: %v, want AlreadyRegistered", err)
	}
	qc := cursorsRawPeer(t, b.URL("/q"))
	for _, v := range []struct {
		queue  string
		answer func(*weida.IncomingExchange) error
		check  func(kind wire.Kind, hdr, payload []byte) bool
	}{
		{"/q", func(ex *weida.IncomingExchange) error { return ex.AnswerLeader(testLeaderURL, 3) },
			func(kind wire.Kind, hdr, payload []byte) bool {
				a, err := wire.DecodeLeaderAnswer(payload)
				return kind == wire.KindData && err == nil && a == wire.LeaderAnswer{Leader: testLeaderURL, Term: 3}
			}},
		{"/q", func(ex *weida.IncomingExchange) error { return ex.RefuseNotLeader("", 3) },
			func(kind wire.Kind, hdr, payload []byte) bool {
				f, err := wire.DecodeError(hdr)
				return kind == wire.KindError && err == nil && f == wire.ErrorFrame{Code: 6, Term: wire.Some[uint64](3)}
			}},
		{"/nope", func(ex *weida.IncomingExchange) error { return ex.RefuseUnknownEndpoint() },
			func(kind wire.Kind, hdr, payload []byte) bool {
				f, err := wire.DecodeError(hdr)
				return kind == wire.KindError && err == nil && f == wire.ErrorFrame{Code: wire.ErrorUnknownEndpoint}
			}},
	} {
		s := leaderRawExchange(t, qc, weida.LeaderPath, []byte(v.queue), true)
		ex := nextExchange(t, lp)
		if got, err := ex.Request().Collect(512); err != nil || string(got) != v.queue {
			t.Fatalf("query payload %q, %v; want %q", got, err, v.queue)
		}
		if err := v.answer(ex); err != nil {
			t.Fatal(err)
		}
		if kind, hdr, payload := leaderReply(t, s); !v.check(kind, hdr, payload) {
			t.Fatalf("query for %s answered %v % X + % X", v.queue, kind, hdr, payload)
		}
	}
}
