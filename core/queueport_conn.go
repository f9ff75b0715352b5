package weida

import (
	"context"
	"time"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// PortConn is an accepted connection as a QueuePort sees it: the consumer
// a subscription lives on. It is comparable (a map key). The zero value is
// no connection: only Alive may be called on it (false).
type PortConn struct{ c *transport.Conn }

// Alive reports whether the connection still lives.
func (pc PortConn) Alive() bool { return pc.c != nil && pc.c.Err() == nil }

// Done is closed when the connection has ended.
func (pc PortConn) Done() <-chan struct{} { return pc.c.Done() }

// Peer is the key the consumer proved; false for an anonymous client.
func (pc PortConn) Peer() (Fingerprint, bool) { return pc.c.Peer() }

// RemoteAddr is the consumer's address, for logs.
func (pc PortConn) RemoteAddr() string { return pc.c.RemoteAddr() }

// Deliver opens a one-way transfer of a queued message toward the consumer
// on to, addressed to the port's path, the way the registration's traffic
// rides the registration's connection (BROKER.md §7.4). meta.Report orders
// the consumer's report; the transfer's Cursors read it. attempt is the
// delivery_attempt (DATA key 12), written only when it is 2 or more: the
// first delivery carries no key. Write the body and Finish; a failure is
// the consumer's connection or flow control giving up, never a refusal the
// queue must answer.
func (p *QueuePort) Deliver(ctx context.Context, to PortConn, meta TransferMeta, attempt uint64) (*OutgoingTransfer, error) {
	if to.c == nil {
		return nil, errs.New(errs.KindRuntime, "deliver: no connection")
	}
	h := meta.header(p.path)
	if attempt >= 2 {
		h.DeliveryAttempt = wire.Some(attempt)
	}
	report, err := orderReport(to.c, meta.Report, &h)
	if err != nil {
		return nil, err
	}
	return openUniTransfer(ctx, to.c, &h, report, false) // deliveries are not numbered
}

// Confirm answers a producer's exchange with DATA {achieved: level} and
// FIN, no payload: the certificate of PROTOCOL.md §8.3.4 (Accepted, or
// Stored for a queue with a store). The level must be on the
// acknowledgement ladder (0..5). A second answer fails with NoReply.
func (p *QueuePort) Confirm(ex *IncomingExchange, level uint64) error {
	if level > wire.LevelProcessed {
		return errs.New(errs.KindProtocol, "confirm: level %d is not on the acknowledgement ladder (0..5)", level)
	}
	out, err := ex.ex.Reply(&wire.Data{Achieved: wire.Some(level)})
	if err != nil {
		return err
	}
	_, err = out.Finish()
	return err
}

// promptGranularity writes every advance at once: a queue's records are
// few (a verdict, a relayed record) and a producer waits for each.
var promptGranularity = cursor.Granularity{Every: 1, Interval: time.Millisecond}

// ProducerReporter is the Reporter of the report a producer ordered on t
// (a one-way transfer, or an exchange's request half), or nil when it
// ordered nothing. Unlike Reporter's default pace it writes each record as
// soon as it is reported. It is the same Reporter every later
// t.Reporter() call returns, and if t.Reporter() was called first, that
// one is returned instead.
//
// Its stream's open waits at most ReportDeadline for the producer's stream
// credit (BROKER.md §11), then the report is abandoned (Reporter.Abandoned):
// a producer that never reads its streams parks no goroutine for longer.
func (p *QueuePort) ProducerReporter(t *IncomingTransfer) *Reporter {
	t.reporterOnce.Do(func() {
		t.reporter = newReporterAt(t.in.Conn(), &t.in.Header, promptGranularity, p.reportDeadline())
	})
	return t.reporter
}

// DefaultReportDeadline is how long a queue's report toward a producer may
// wait for its stream to open (BROKER.md §11, REPORT_DEADLINE).
const DefaultReportDeadline = 10 * time.Second

// SetReportDeadline changes the deadline of the port's reports opened
// after it (DefaultReportDeadline until then); d must be positive.
func (p *QueuePort) SetReportDeadline(d time.Duration) {
	if d > 0 {
		p.deadline.Store(int64(d))
	}
}

func (p *QueuePort) reportDeadline() time.Duration {
	if d := p.deadline.Load(); d > 0 {
		return time.Duration(d)
	}
	return DefaultReportDeadline
}

// ProducerConn is the connection t arrived on: the producer its reports go
// to, comparable, for a queue that bounds what it holds per producer.
func (p *QueuePort) ProducerConn(t *IncomingTransfer) PortConn { return PortConn{c: t.in.Conn()} }
