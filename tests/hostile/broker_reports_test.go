package hostile

import (
	"context"
	"runtime"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// producerStreamCredit is the reports the broker can open toward a
// producer that accepts no stream: rawpeer's uni-stream credit (2048) less
// the one the broker's HELLO takes.
const producerStreamCredit = 2048 - 1

// serveQueue runs a broker with one memory queue at /q on a loopback binding.
func serveQueue(t *testing.T, cfg broker.Config) (*broker.Broker, string) {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Queues = []broker.QueueConfig{{Path: "/q"}}
	brk, err := broker.New(rt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { _ = brk.Serve(ctx); close(served) }()
	t.Cleanup(func() { cancel(); brk.Close(); <-served })
	return brk, b.URL("/q")
}

// orderingProducer sends n one-way messages to url, each ordering an
// Accepted report, and never accepts a stream: every report toward it
// beyond its credit waits for credit that never comes.
func orderingProducer(t *testing.T, url string, n int) *rawpeer.Conn {
	t.Helper()
	c, err := rawpeer.Dial(ctxFor(t), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	mustSend(t, c.Uni(rawpeer.Hello()))
	for i := range n {
		h := wire.Data{Endpoint: wire.Some("/q"), ReportID: wire.Some(uint64(i + 1)), Report: []uint64{wire.LevelAccepted}}
		// Waits for the broker's stream credit, as a well-behaved sender does.
		s, err := c.QC.OpenUniStreamSync(ctxFor(t))
		mustSend(t, err)
		_, err = s.Write(rawpeer.Encode(wire.KindData, &h))
		mustSend(t, err)
		mustSend(t, s.Close())
	}
	return c
}

// awaitStats polls the queue's Stats until cond holds.
func awaitStats(t *testing.T, brk *broker.Broker, what string, cond func(broker.QueueStats) bool) broker.QueueStats {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := brk.Stats(ctxFor(t), "/q")
		if err != nil {
			t.Fatal(err)
		}
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s (stats %+v)", what, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A producer that orders Accepted on one-way sends and never reads its
// streams: the reports past its stream credit wait at most the report
// deadline and are abandoned, counted, while every message is admitted;
// the broker's goroutines come back. Before the deadline, each such report
// parked a goroutine until the connection ended.
func TestBrokerReportsToAProducerThatNeverReadsAreAbandoned(t *testing.T) {
	const sends = producerStreamCredit + 400
	before := runtime.NumGoroutine()
	brk, url := serveQueue(t, broker.Config{ReportDeadline: 300 * time.Millisecond})
	orderingProducer(t, url, sends)
	s := awaitStats(t, brk, "the reports past the producer's credit abandoned", func(s broker.QueueStats) bool {
		return s.ReportsAbandoned >= sends-producerStreamCredit
	})
	if s.Ready != sends || s.ReportsAbandoned != sends-producerStreamCredit {
		t.Fatalf("ready %d of %d, %d reports abandoned (want %d)", s.Ready, sends, s.ReportsAbandoned, sends-producerStreamCredit)
	}
	// The abandoned reports' goroutines are gone: what remains is the
	// broker's, the runtimes' and the producer connection's own.
	if n := runtime.NumGoroutine(); n > before+200 {
		t.Fatalf("%d goroutines, %d before the producer: the abandoned reports left theirs", n, before)
	}
}

// Past MaxProducerReports reports under way toward one producer
// connection, a new order is abandoned at once and its message admitted:
// a producer that never reads cannot make the broker hold a report per
// message for the whole deadline.
func TestBrokerBoundsTheReportsTowardOneProducer(t *testing.T) {
	const sends = producerStreamCredit + broker.MaxProducerReports + 300
	brk, url := serveQueue(t, broker.Config{ReportDeadline: time.Minute})
	orderingProducer(t, url, sends)
	s := awaitStats(t, brk, "every message admitted", func(s broker.QueueStats) bool { return s.Ready == sends })
	// The first reports got streams and ended; MaxProducerReports wait for
	// credit; the rest were abandoned at admission.
	if want := uint64(sends - producerStreamCredit - broker.MaxProducerReports); s.ReportsAbandoned != want {
		t.Fatalf("%d reports abandoned, want %d", s.ReportsAbandoned, want)
	}
}
