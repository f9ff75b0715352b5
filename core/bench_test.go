package weida_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawquic"
)

// The foundation benchmarks compare weida with the same stream work on raw
// quic-go (package rawquic), each in steady state on one connection that is
// established before the timer starts, over loopback, both ends in this
// process. Allocation counts include both ends.

const (
	exchangeBytes = 1 << 10 // request and reply size of one exchange
	pushBytes     = 64      // size of one pushed message
	collectLimit  = 1 << 20 // the responder's Collect ceiling
	benchPath     = "/bench"
	// warmupExchanges round trips precede every timed exchange run.
	warmupExchanges = 200
)

// exchangeSubject is an established connection with an echo responder
// behind it; roundTrip sends exchangeBytes and reads the same back.
type exchangeSubject interface {
	roundTrip(ctx context.Context) error
}

// pushSubject is an established connection with a draining receiver
// behind it, expecting a fixed number of messages.
type pushSubject interface {
	push(ctx context.Context) error
	// awaitDrained waits until the receiver has read every expected message.
	awaitDrained(ctx context.Context) error
}

// Each open function registers the subject's teardown with tb.Cleanup.
var exchangeSubjects = []struct {
	name string
	open func(tb testing.TB) exchangeSubject
}{
	{"weida", openWeidaExchange},
	{"rawquic", func(tb testing.TB) exchangeSubject { return openRawExchange(tb, false) }},
	{"rawquic+tracer", func(tb testing.TB) exchangeSubject { return openRawExchange(tb, true) }},
}

var pushSubjects = []struct {
	name string
	open func(tb testing.TB, messages int) pushSubject
}{
	{"weida", openWeidaPush},
	{"rawquic", func(tb testing.TB, messages int) pushSubject { return openRawPush(tb, messages, false) }},
	{"rawquic+tracer", func(tb testing.TB, messages int) pushSubject { return openRawPush(tb, messages, true) }},
	// The tracer and the hand-off to a consumer goroutine that weida's
	// Puller needs (it is fed by every connection of its path): the raw
	// stack doing the least weida's receive API must do.
	{"rawquic+tracer+handoff", func(tb testing.TB, messages int) pushSubject {
		return openRawPushHandedOff(tb, messages, nil, false)
	}},
	// And the bytes weida's wire puts before each payload (its preamble
	// and DATA header, as Pusher.Send writes them), skipped unread: what
	// the protocol's framing costs the transport, without weida's code.
	{"rawquic+tracer+handoff+header", func(tb testing.TB, messages int) pushSubject {
		return openRawPushHandedOff(tb, messages, pushHeader(), false)
	}},
	// And each stream's credit held until the consumer took its message,
	// as a Puller holds it until its caller read the payload: what makes a
	// full queue stall its pushers and a drain wait for the reader.
	{"rawquic+tracer+handoff+header+credit", func(tb testing.TB, messages int) pushSubject {
		return openRawPushHandedOff(tb, messages, pushHeader(), true)
	}},
}

// BenchmarkExchange1KiB measures one request/reply of 1 KiB each way per op,
// reporting the median and 99th-percentile round trip beside ns/op.
func BenchmarkExchange1KiB(b *testing.B) {
	for _, s := range exchangeSubjects {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			rtts := measureExchanges(b, s.open(b), b.N)
			slices.Sort(rtts)
			b.ReportMetric(float64(percentile(rtts, 0.50)), "p50-ns")
			b.ReportMetric(float64(percentile(rtts, 0.99)), "p99-ns")
		})
	}
}

// BenchmarkPush64B measures fire-and-forget 64-byte messages; the clock
// stops only once the receiver has drained all of them.
func BenchmarkPush64B(b *testing.B) {
	for _, s := range pushSubjects {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			elapsed := measurePushes(b, s.open(b, b.N), b.N)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
		})
	}
}

// TestBenchHarnessSmoke runs every benchmark body for a few operations, so
// `go test` keeps the harness (servers, teardown, checks) from rotting.
func TestBenchHarnessSmoke(t *testing.T) {
	const ops = 5
	for _, s := range exchangeSubjects {
		t.Run("Exchange1KiB/"+s.name, func(t *testing.T) {
			rtts := measureExchanges(t, s.open(t), ops)
			if len(rtts) != ops || slices.Min(rtts) <= 0 {
				t.Fatalf("round trips = %v, want %d positive durations", rtts, ops)
			}
		})
	}
	for _, s := range pushSubjects {
		t.Run("Push64B/"+s.name, func(t *testing.T) {
			if elapsed := measurePushes(t, s.open(t, ops), ops); elapsed <= 0 {
				t.Fatalf("elapsed = %v, want a positive duration", elapsed)
			}
		})
	}
}

// measureExchanges times n round trips one after another; under a benchmark
// the timer covers exactly the loop.
func measureExchanges(tb testing.TB, s exchangeSubject, n int) []time.Duration {
	rtts := make([]time.Duration, n)
	ctx := tb.Context()
	// Steady state: a fresh connection's first round trips still grow
	// windows, pools and caches on both ends, whichever stack it is.
	for i := range warmupExchanges {
		if err := s.roundTrip(ctx); err != nil {
			tb.Fatalf("warm-up round trip %d: %v", i, err)
		}
	}
	restartTimer(tb)
	for i := range rtts {
		start := time.Now()
		if err := s.roundTrip(ctx); err != nil {
			tb.Fatalf("round trip %d: %v", i, err)
		}
		rtts[i] = time.Since(start)
	}
	stopTimer(tb)
	return rtts
}

// measurePushes sends n messages and waits until all were drained.
func measurePushes(tb testing.TB, s pushSubject, n int) time.Duration {
	ctx := tb.Context()
	clock := startClock(tb)
	for i := range n {
		if err := s.push(ctx); err != nil {
			tb.Fatalf("push %d: %v", i, err)
		}
	}
	if err := s.awaitDrained(ctx); err != nil {
		tb.Fatalf("draining %d messages: %v", n, err)
	}
	return clock.stop(n)
}

// benchClock times a measured stretch in wall time and, where the platform
// tells, in this process's CPU time (both ends run here): the CPU per
// message barely moves when other processes load the machine, while the
// wall time does. On Linux it also counts what the stretch put on the
// loopback (wireCount), so two stacks' wire costs per message compare.
type benchClock struct {
	tb        testing.TB
	start     time.Time
	startCPU  time.Duration
	cpuOK     bool
	startWire [2]float64 // loopback bytes, UDP sends
	wireOK    bool
}

// startClock restarts the benchmark timer and starts the clock.
func startClock(tb testing.TB) benchClock {
	restartTimer(tb)
	cpu, ok := processCPU()
	lo, sends, wireOK := wireCount()
	return benchClock{tb: tb, start: time.Now(), startCPU: cpu, cpuOK: ok, startWire: [2]float64{lo, sends}, wireOK: wireOK}
}

// stop stops the timer, reports cpu-ns/msg (and lo-B/msg, udp-sends/msg)
// over n messages under a benchmark, and returns the wall time.
func (c benchClock) stop(n int) time.Duration {
	elapsed := time.Since(c.start)
	cpu, ok := processCPU()
	lo, sends, wireOK := wireCount()
	stopTimer(c.tb)
	b, isBench := c.tb.(*testing.B)
	if !isBench || n <= 0 {
		return elapsed
	}
	if ok && c.cpuOK {
		b.ReportMetric(float64((cpu-c.startCPU).Nanoseconds())/float64(n), "cpu-ns/msg")
	}
	if wireOK && c.wireOK {
		b.ReportMetric((lo-c.startWire[0])/float64(n), "lo-B/msg")
		b.ReportMetric((sends-c.startWire[1])/float64(n), "udp-sends/msg")
	}
	return elapsed
}

func restartTimer(tb testing.TB) {
	if b, ok := tb.(*testing.B); ok {
		b.ResetTimer()
	}
}

func stopTimer(tb testing.TB) {
	if b, ok := tb.(*testing.B); ok {
		b.StopTimer()
	}
}

// percentile is the nearest-rank q-quantile of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

// tally counts what a receiver drained on its one goroutine and closes done
// at the expected count; a wrong size or a read error is kept in err, which
// is read only after done is closed or the receiver stopped.
type tally struct {
	left int
	done chan struct{}
	err  error
}

func newTally(expected int) *tally {
	t := &tally{left: expected, done: make(chan struct{})}
	if expected == 0 {
		close(t.done)
	}
	return t
}

func (t *tally) count(size int, err error) {
	if err == nil && size != pushBytes {
		err = fmt.Errorf("a message of %d bytes arrived, want %d", size, pushBytes)
	}
	if err != nil && t.err == nil {
		t.err = err
	}
	if t.left--; t.left == 0 {
		close(t.done)
	}
}

// weidaPair is a server runtime with an acceptor bound on loopback, a
// client runtime whose peer is connected to it, and a server loop.
type weidaPair struct {
	peer    *weida.Peer
	stopped chan struct{} // closed when the server loop returned
	loopErr error         // the server loop's failure; read after stopped
}

// connectWeida establishes the pair and starts serve as the server loop;
// serve must return when ctx ends. Teardown stops the loop, shuts both
// runtimes down, and fails tb if the loop had failed before.
func connectWeida(tb testing.TB, serve func(ctx context.Context, a *weida.Acceptor) error) *weidaPair {
	tb.Helper()
	server := newRuntime(tb)
	acceptor, err := server.Listener().Acceptor(benchPath)
	if err != nil {
		tb.Fatalf("registering %s: %v", benchPath, err)
	}
	id, err := weida.GenerateIdentity()
	if err != nil {
		tb.Fatalf("generating the server identity: %v", err)
	}
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		tb.Fatalf("binding: %v", err)
	}
	client := newRuntime(tb)
	peer := client.Peer(weida.TrustByAddress())
	if err := peer.Connect(tb.Context(), binding.URL(benchPath)); err != nil {
		tb.Fatalf("connecting: %v", err)
	}
	p := &weidaPair{peer: peer, stopped: make(chan struct{})}
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		defer close(p.stopped)
		if err := serve(ctx, acceptor); err != nil && ctx.Err() == nil {
			p.loopErr = err
			server.Shutdown() // the client's pending operation fails instead of hanging
		}
	}()
	tb.Cleanup(func() {
		// Cancel first, so what the loop sees next is a requested stop; the
		// shutdowns then unblock a loop stuck mid-stream.
		stop()
		client.Shutdown()
		server.Shutdown()
		<-p.stopped
		if p.loopErr != nil {
			tb.Errorf("server loop: %v", p.loopErr)
		}
	})
	return p
}

func newRuntime(tb testing.TB) *weida.Runtime {
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		tb.Fatalf("creating a runtime: %v", err)
	}
	tb.Cleanup(rt.Shutdown)
	return rt
}

// weidaExchange is the weida exchange subject.
type weidaExchange struct {
	*weidaPair
	request, reply []byte
}

func openWeidaExchange(tb testing.TB) exchangeSubject {
	request := make([]byte, exchangeBytes)
	pair := connectWeida(tb, func(ctx context.Context, a *weida.Acceptor) error {
		return serveWeidaEcho(ctx, a, request)
	})
	return &weidaExchange{weidaPair: pair, request: request, reply: make([]byte, exchangeBytes+1)}
}

func (w *weidaExchange) roundTrip(ctx context.Context) error {
	out, replies, err := w.peer.OpenBi(ctx, weida.TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write(w.request); err != nil {
		return err
	}
	if _, err := out.Finish(); err != nil {
		return err
	}
	in, err := replies.Recv(ctx)
	if err != nil {
		return err
	}
	return expectSize(rawquic.ReadMessage(in, w.reply))
}

// serveWeidaEcho is the responder: read the request, Reply with reply,
// Finish. It uses Serve, so an exchange is answered on the goroutine that
// accepted its stream, as the raw twin (rawquic.ServeEcho) answers it on its
// accepting goroutine. It reads into reused buffers, as the raw twin does,
// so both do the same work per exchange; Collect would add a fresh
// request-sized allocation and a copy the raw twin does not make. A failed
// exchange ends Serve and is returned.
func serveWeidaEcho(ctx context.Context, a *weida.Acceptor, reply []byte) error {
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	bufs := sync.Pool{New: func() any { b := make([]byte, exchangeBytes+1); return &b }}
	err := a.Serve(ctx, func(item weida.Incoming) {
		ex, ok := item.(*weida.IncomingExchange)
		if !ok {
			fail(fmt.Errorf("accepted a %T, want an exchange", item))
			return
		}
		buf := bufs.Get().(*[]byte)
		defer bufs.Put(buf)
		if err := answerWeida(ex, *buf, reply); err != nil {
			_ = ex.Close() // NO_REPLY when unanswered, so the requester fails too
			fail(err)
		}
	})
	if cause := context.Cause(ctx); cause != ctx.Err() {
		return cause // a handler failed
	}
	return err
}

func answerWeida(ex *weida.IncomingExchange, buf, reply []byte) error {
	if err := expectSize(rawquic.ReadMessage(ex.Request(), buf)); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	out, err := ex.Reply(weida.TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write(reply); err != nil {
		out.Cancel()
		return err
	}
	_, err = out.Finish()
	return err
}

// expectSize checks that a read produced exactly one exchange payload.
func expectSize(n int, err error) error {
	if err == nil && n != exchangeBytes {
		err = fmt.Errorf("read %d bytes, want %d", n, exchangeBytes)
	}
	return err
}

// weidaPush is the weida push subject.
type weidaPush struct {
	*weidaPair
	message []byte
	tally   *tally
}

func openWeidaPush(tb testing.TB, messages int) pushSubject {
	t := newTally(messages)
	pair := connectWeida(tb, func(ctx context.Context, a *weida.Acceptor) error {
		return drainWeida(ctx, a, t)
	})
	return &weidaPush{weidaPair: pair, message: make([]byte, pushBytes), tally: t}
}

func (w *weidaPush) push(ctx context.Context) error {
	out, err := w.peer.Open(ctx, weida.TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write(w.message); err != nil {
		return err
	}
	_, err = out.Finish() // fire and forget: the receipt is not awaited
	return err
}

func (w *weidaPush) awaitDrained(ctx context.Context) error {
	select {
	case <-w.tally.done:
		return w.tally.err
	case <-w.stopped:
		return fmt.Errorf("the receiver stopped early: %w", w.loopErr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drainWeida is the receiver: Accept every transfer and read it to its end.
func drainWeida(ctx context.Context, a *weida.Acceptor, t *tally) error {
	buf := make([]byte, pushBytes+1)
	for {
		item, err := a.Accept(ctx)
		if err != nil {
			return err
		}
		in, ok := item.(*weida.IncomingTransfer)
		if !ok {
			return fmt.Errorf("accepted a %T, want a one-way transfer", item)
		}
		n, err := rawquic.ReadMessage(in, buf)
		if err != nil {
			_ = in.Close() // refuse the rest of an oversized or broken message
		}
		t.count(n, err)
	}
}

// rawExchange is the raw quic-go exchange subject.
type rawExchange struct {
	pair           *rawquic.Pair
	request, reply []byte
}

func openRawExchange(tb testing.TB, withTracer bool) exchangeSubject {
	pair := establishRaw(tb, withTracer)
	request := make([]byte, exchangeBytes)
	pair.ServeEcho(request, exchangeBytes)
	return &rawExchange{pair: pair, request: request, reply: make([]byte, exchangeBytes+1)}
}

func (r *rawExchange) roundTrip(ctx context.Context) error {
	return expectSize(r.pair.Exchange(ctx, r.request, r.reply))
}

// rawPush is the raw quic-go push subject.
type rawPush struct {
	pair    *rawquic.Pair
	message []byte
	tally   *tally
}

func openRawPush(tb testing.TB, messages int, withTracer bool) pushSubject {
	pair := establishRaw(tb, withTracer)
	t := newTally(messages)
	pair.ServeDrain(pushBytes, t.count)
	return &rawPush{pair: pair, message: make([]byte, pushBytes), tally: t}
}

// openRawPushHandedOff is the raw stack with the tracer and the hand-off;
// each message carries header before its payload, and the consumer counts
// the payload alone.
func openRawPushHandedOff(tb testing.TB, messages int, header []byte, holdCredit bool) pushSubject {
	pair := establishRawWith(tb, rawquic.Options{Tracer: true, HoldStreamCredit: holdCredit})
	t := newTally(messages)
	pair.ServeDrainHandedOff(len(header)+pushBytes, weida.DefaultEndpointQueue, func(n int, err error) {
		t.count(n-len(header), err)
	})
	message := append(header, make([]byte, pushBytes)...)
	return &rawPush{pair: pair, message: message, tally: t}
}

func (r *rawPush) push(ctx context.Context) error { return r.pair.Push(ctx, r.message) }

func (r *rawPush) awaitDrained(ctx context.Context) error {
	select {
	case <-r.tally.done:
		return r.tally.err
	case <-r.pair.Server.Context().Done():
		return fmt.Errorf("the receiving connection ended: %w", context.Cause(r.pair.Server.Context()))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pushHeader is the preamble and DATA header Pusher.Send puts before a
// pushBytes payload to benchPath.
func pushHeader() []byte {
	h := wire.Data{Endpoint: wire.Some(benchPath), ContentLen: wire.Some[uint64](pushBytes)}
	return wire.AppendDataFrame(nil, &h)
}

func establishRaw(tb testing.TB, withTracer bool) *rawquic.Pair {
	return establishRawWith(tb, rawquic.Options{Tracer: withTracer})
}

func establishRawWith(tb testing.TB, o rawquic.Options) *rawquic.Pair {
	tb.Helper()
	pair, err := rawquic.EstablishWith(tb.Context(), o)
	if err != nil {
		tb.Fatalf("establishing the raw QUIC connection: %v", err)
	}
	tb.Cleanup(func() {
		if err := pair.Close(); err != nil {
			tb.Errorf("raw server loop: %v", err)
		}
	})
	return pair
}
