package weida

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// TransferMeta is what a sender may say about a transfer in its DATA header.
// Every field is optional; the zero value says nothing.
type TransferMeta struct {
	ContentType string // opaque media-type label (<= 256 bytes)
	// ContentLen is the advisory payload length; written only when
	// HasContentLen. A receiver sizes its buffer by it only within its own
	// ceiling, and by no more than 4 MiB before the bytes arrive.
	ContentLen    uint64
	HasContentLen bool
	Traceparent   string // W3C traceparent, only when the application has one
	Tracestate    string // W3C tracestate, forwarded unmodified
	// Topic is the topic of a message sent to a queue (<= 256 bytes; a
	// queue's consumers select on it). A Publisher sets its own.
	Topic string
	// Report orders a report from the receiver (see ReportOrder); the
	// transfer's Cursors show it. Honoured where a transfer is opened
	// (Open, OpenBi, a reply, SendReporting); SendWith and RequestWith hand
	// back no Cursors and refuse an order.
	Report ReportOrder
	// Producer names the message's producer when it is not this side (a
	// relay sending for another peer), in DATA key 7: a claim the receiver
	// may not authorize on. Numbering then runs per producer and scope. The
	// zero value names nobody: the producer is this side, proved by its key.
	Producer Fingerprint
}

// whole is m for a whole payload of n bytes sent at once: it states the
// advisory length (DATA key 1, PROTOCOL.md §8.3) unless the application
// stated one, since a whole-payload send knows it before the first byte.
func (m TransferMeta) whole(n int) TransferMeta {
	if !m.HasContentLen {
		m.ContentLen, m.HasContentLen = uint64(n), true
	}
	return m
}

// header builds the DATA header. The report order (keys 9-11) is written
// by orderReport, because its id comes from the transfer's connection.
func (m TransferMeta) header(endpoint string) wire.Data {
	var d wire.Data
	m.writeHeader(&d, endpoint)
	return d
}

// writeHeader sets the keys header would in d, a zero header.
func (m *TransferMeta) writeHeader(d *wire.Data, endpoint string) {
	if endpoint != "" {
		d.Endpoint = wire.Some(endpoint)
	}
	if m.ContentType != "" {
		d.ContentType = wire.Some(m.ContentType)
	}
	if m.HasContentLen {
		d.ContentLen = wire.Some(m.ContentLen)
	}
	if m.Traceparent != "" {
		d.Traceparent = wire.Some(m.Traceparent)
	}
	if m.Tracestate != "" {
		d.Tracestate = wire.Some(m.Tracestate)
	}
	if m.Topic != "" {
		d.Topic = wire.Some(m.Topic)
	}
	if m.Producer != (Fingerprint{}) {
		d.Producer = wire.Some([wire.ProducerLen]byte(m.Producer))
	}
}

// OutgoingTransfer is one outgoing stream half: write the payload, then
// Finish (FIN) or Cancel (reset). It is an io.Writer for one goroutine;
// Cancel may be called from another to unblock a Write. Abandoning an
// unfinished transfer without Cancel leaves its stream open: always Finish
// or Cancel.
type OutgoingTransfer struct {
	out      *transport.OutStream
	report   atomic.Pointer[reportFeed] // the ordered report, until Cursors takes it
	feed     *reportFeed                // the ordered report, for Finish to bound
	delivery Delivery                   // what Finish hands out (it succeeds once)
}

// init sets up a zero OutgoingTransfer in place (one embedded in a larger
// allocation).
func (t *OutgoingTransfer) init(out *transport.OutStream, report *reportFeed) {
	t.out = out
	t.feed = report
	t.report.Store(report)
}

// Cursors hands out the view of the report this transfer ordered, once;
// later calls, and a transfer that ordered nothing, return nil.
func (t *OutgoingTransfer) Cursors() *Cursors {
	if f := t.report.Swap(nil); f != nil {
		return &Cursors{f: f}
	}
	return nil
}

// Write writes payload bytes. A refusal by the peer surfaces here as a typed
// error (Rejected, UnknownEndpoint, Unsupported); a lost connection as
// ConnectionLost, which is definite: the receiver discards partial transfers.
func (t *OutgoingTransfer) Write(p []byte) (int, error) { return t.out.Write(p) }

// Finish queues the FIN and returns the Delivery. It does not wait.
func (t *OutgoingTransfer) Finish() (*Delivery, error) {
	// The payload's length is known now, before the FIN lets the receiver
	// report on all of it: a report beyond it measures nothing, so its
	// records are dropped (Cursors.Ignored).
	t.feed.setLength(uint64(t.out.Written()))
	r, err := t.out.Finish()
	if err != nil {
		return nil, err
	}
	// The transport refuses a second Finish, so the embedded Delivery is
	// written once and no allocation is spent on it.
	t.delivery.receipt = r
	return &t.delivery, nil
}

// Cancel abandons the transfer (RESET_STREAM CANCELED); the reader sees
// Canceled, never a complete payload.
func (t *OutgoingTransfer) Cancel() { t.out.Cancel() }

// cancelUnfinished cancels the transfer unless its FIN is already queued
// (transport.OutStream.CancelUnfinished).
func (t *OutgoingTransfer) cancelUnfinished() { t.out.CancelUnfinished() }

// sendWhole writes payload and finishes the transfer. ctx bounds the waits
// on the way (flow-control room, a unix socket's room for the FIN): ending
// first, it resets the transfer and the send fails Canceled with ctx's
// error; once the FIN is queued, ctx ending changes nothing, as the payload
// went out whole.
func (t *OutgoingTransfer) sendWhole(ctx context.Context, payload []byte) error {
	if ctx.Done() != nil { // a context that cannot end needs no watcher
		stop := context.AfterFunc(ctx, t.cancelUnfinished)
		defer stop()
	}
	_, err := t.Write(payload)
	if err == nil {
		_, err = t.Finish()
	}
	if err != nil && ctx.Err() != nil && errs.KindOf(err) == errs.KindCanceled {
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "send abandoned: the transfer was reset")
	}
	return err
}

// Delivery is the transport receipt of a finished transfer.
type Delivery struct {
	receipt *transport.Receipt
}

// Delivered waits until the peer's QUIC stack acknowledged every byte and
// the FIN (nil; on a local transport: the FIN is in the peer's buffer), or the transfer was refused (Rejected, UnknownEndpoint,
// Unsupported), or the connection ended first (Indeterminate: the peer may
// or may not hold it). It says nothing about the peer application. ctx only
// bounds the wait; it does not cancel the transfer.
func (d *Delivery) Delivered(ctx context.Context) error {
	select {
	case <-d.receipt.Done():
		return deliveryOutcome(d.receipt.Err())
	case <-ctx.Done():
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for the receipt")
	}
}

// Done is closed when Delivered would return without waiting.
func (d *Delivery) Done() <-chan struct{} { return d.receipt.Done() }

// deliveryOutcome relabels a connection loss after FIN as Indeterminate.
func deliveryOutcome(err error) error {
	if e, ok := err.(*errs.Error); ok && e.Kind != errs.KindRejected && e.Kind != errs.KindUnknownEndpoint &&
		e.Kind != errs.KindUnsupported && e.Kind != errs.KindCanceled && e.Kind != errs.KindLimitExceeded {
		return &errs.Error{Kind: errs.KindIndeterminate, Cause: e.Cause, Err: e,
			Msg: "outcome unknown: the connection ended before the receipt (" + e.Msg + ")"}
	}
	return err
}

// IncomingMeta is what arrived with a transfer: its DATA header and the
// peer the transport proved (never a header claim).
type IncomingMeta struct {
	h       *wire.Data // the stream's decoded header, shared and never written
	peer    Fingerprint
	hasPeer bool
	conn    *transport.Conn // the carrying connection: its kernel-proved local peer (localbind.go)
	order   seqMark         // what sequencing found (seqreceive.go)
}

// noHeader stands in for the header of a zero IncomingMeta.
var noHeader wire.Data

// hdr is the header, or an empty one for the zero value.
func (m IncomingMeta) hdr() *wire.Data {
	if m.h == nil {
		return &noHeader
	}
	return m.h
}

func newIncomingMeta(c *transport.Conn, h *wire.Data) IncomingMeta {
	fp, ok := c.Peer()
	return IncomingMeta{h: h, peer: fp, hasPeer: ok, conn: c}
}

// Endpoint is the path addressed; false on a reply half.
func (m IncomingMeta) Endpoint() (string, bool) { return m.hdr().Endpoint.V, m.hdr().Endpoint.Ok }

// ContentLen is the sender's advisory payload length.
func (m IncomingMeta) ContentLen() (uint64, bool) { return m.hdr().ContentLen.V, m.hdr().ContentLen.Ok }

// ContentType is the sender's media-type label.
func (m IncomingMeta) ContentType() (string, bool) {
	return m.hdr().ContentType.V, m.hdr().ContentType.Ok
}

// Topic is the topic of a fan-out copy.
func (m IncomingMeta) Topic() (string, bool) { return m.hdr().Topic.V, m.hdr().Topic.Ok }

// Traceparent is the W3C trace context the sender supplied.
func (m IncomingMeta) Traceparent() (string, bool) {
	return m.hdr().Traceparent.V, m.hdr().Traceparent.Ok
}

// Tracestate is the W3C tracestate the sender supplied.
func (m IncomingMeta) Tracestate() (string, bool) { return m.hdr().Tracestate.V, m.hdr().Tracestate.Ok }

// Report is the report the sender ordered (levels ascending, and the
// mode); false when it ordered nothing. The transfer's Reporter answers it.
func (m IncomingMeta) Report() (ReportOrder, bool) {
	h := m.hdr()
	if !h.ReportID.Ok || len(h.Report) == 0 {
		return ReportOrder{}, false
	}
	return ReportOrder{Levels: slices.Clone(h.Report), Mode: ReportMode(h.ReportMode)}, true
}

// ReportID is the id the sender allocated for its report on the
// connection; false when it ordered nothing.
func (m IncomingMeta) ReportID() (uint64, bool) { return m.hdr().ReportID.V, m.hdr().ReportID.Ok }

// Peer is the key the peer proved in the handshake; false for an anonymous
// client.
func (m IncomingMeta) Peer() (Fingerprint, bool) { return m.peer, m.hasPeer }

// Sequence is the transfer's number in its producer's sequence for its
// topic, else its path (DATA key 6). False when the connection agreed on
// neither PerProducer ordering nor Bounded deduplication (the key is then
// ignored), for an unnumbered transfer, and for an exchange.
func (m IncomingMeta) Sequence() (uint64, bool) { return m.order.sequence, m.order.numbered }

// Missed is how many of the producer's numbers just before this transfer
// never arrived: the gap PerProducer(detect) reports with the next arrival,
// or the one PerProducer(reassemble) skipped when its hold was full. A
// publisher's dropped copy shows up here. False when nothing was missed.
func (m IncomingMeta) Missed() (uint64, bool) { return m.order.missed, m.order.missed > 0 }

// Producer is the producer the sender named in DATA key 7, one that is not
// the connection peer (a relay sending for someone else). It is a claim,
// never a proof: authorize on Peer. False when absent: the producer is the peer.
func (m IncomingMeta) Producer() (Fingerprint, bool) {
	return Fingerprint(m.hdr().Producer.V), m.hdr().Producer.Ok
}

// IncomingTransfer is one inbound stream half: an io.Reader of the payload.
// Close it when done; closing before EOF refuses the rest (STOP_SENDING
// REJECTED), so the sender learns.
type IncomingTransfer struct {
	in   *transport.InStream
	meta IncomingMeta

	reporterOnce sync.Once
	reporter     *Reporter
}

func newIncomingTransfer(in *transport.InStream) *IncomingTransfer {
	t := new(IncomingTransfer)
	t.init(in)
	return t
}

// init sets up a zero IncomingTransfer in place (one embedded in a larger
// allocation, as an exchange's request half is).
func (t *IncomingTransfer) init(in *transport.InStream) {
	t.in = in
	t.meta = newIncomingMeta(in.Conn(), &in.Header)
}

// Meta is the transfer's header and proved peer.
func (t *IncomingTransfer) Meta() IncomingMeta { return t.meta }

// Reporter answers the report the sender ordered; nil when it ordered
// nothing. Every call returns the same Reporter.
func (t *IncomingTransfer) Reporter() *Reporter {
	t.reporterOnce.Do(func() { t.reporter = newReporter(t.in.Conn(), &t.in.Header) })
	return t.reporter
}

// Read reads payload; io.EOF marks the sender's FIN. A sender's reset is
// Canceled, never EOF.
func (t *IncomingTransfer) Read(p []byte) (int, error) { return t.in.Read(p) }

// Collect reads the whole payload if it is at most maxBytes. Above the
// ceiling it refuses the transfer (STOP_SENDING REJECTED, so the sender sees
// Rejected), keeps nothing, and returns LimitExceeded. Memory grows with what
// arrives, except that the sender's advisory length, when within maxBytes,
// sizes the buffer once.
func (t *IncomingTransfer) Collect(maxBytes int64) ([]byte, error) {
	return collect(t.in, maxBytes)
}

// Close releases the transfer; before EOF it refuses the rest (REJECTED).
func (t *IncomingTransfer) Close() error {
	t.in.Refuse(wire.CodeRejected)
	return nil
}

// openTransfer opens a one-way transfer on c to c's dialled path.
func openTransfer(ctx context.Context, c *transport.Conn, meta TransferMeta) (*OutgoingTransfer, error) {
	return openTransferAt(ctx, c, c.Path(), meta)
}

// openTransferAt opens a one-way transfer on c addressed to path, with the
// report meta orders, if any.
func openTransferAt(ctx context.Context, c *transport.Conn, path string, meta TransferMeta) (*OutgoingTransfer, error) {
	var h wire.Data // on the stack: the transport encodes it without keeping it
	meta.writeHeader(&h, path)
	report, err := orderReport(c, meta.Report, &h)
	if err != nil {
		return nil, err
	}
	return openUniTransfer(ctx, c, &h, report, seqAgreed(c.Agreed().Guarantees))
}

// openUniTransfer opens a one-way transfer on c carrying h, with report
// (nil when none was ordered), canceled if the open fails. A numbered
// transfer draws its sequence number once its stream is in hand
// (numberOpened). Both layers' state take one allocation.
func openUniTransfer(ctx context.Context, c *transport.Conn, h *wire.Data, report *reportFeed, numbered bool) (*OutgoingTransfer, error) {
	both := &struct {
		t   OutgoingTransfer
		out transport.OutStream
	}{}
	if err := c.OpenUniInto(ctx, h, &both.out); err != nil {
		report.cancel()
		return nil, err
	}
	if numbered {
		if err := numberOpened(c, &both.out, h); err != nil {
			report.cancel()
			return nil, err
		}
	}
	both.t.init(&both.out, report)
	return &both.t, nil
}
