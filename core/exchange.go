package weida

import (
	"context"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// IncomingExchange is an exchange on the responder side: a request to read
// and exactly one answer — Reply, Refuse, or (when released unanswered by
// Close) NO_REPLY, so the requester never hangs.
type IncomingExchange struct {
	ex    *transport.Exchange
	req   IncomingTransfer // the request half, in the same allocation
	reply OutgoingTransfer // the reply half, set up by the one Reply that claims the exchange
}

func newIncomingExchange(ex *transport.Exchange) *IncomingExchange {
	e := new(IncomingExchange)
	e.init(ex)
	return e
}

func (e *IncomingExchange) init(ex *transport.Exchange) {
	e.ex = ex
	e.req.init(ex.In)
}

// Request is the request half: read it like any incoming transfer.
func (e *IncomingExchange) Request() *IncomingTransfer { return &e.req }

// Reply opens the reply half. Write the reply and Finish it. A second answer
// fails with NoReply. meta.Report may order a report on the reply: the
// requester then reports toward this side on a stream of its own, and the
// reply half still carries exactly one DATA frame (PROTOCOL.md §8.3.5).
func (e *IncomingExchange) Reply(meta TransferMeta) (*OutgoingTransfer, error) {
	var h wire.Data // on the stack: the transport encodes it without keeping it
	meta.writeHeader(&h, "")
	report, err := orderReport(e.ex.Conn(), meta.Report, &h)
	if err != nil {
		return nil, err
	}
	out, err := e.ex.Reply(&h)
	if err != nil {
		report.cancel()
		return nil, err
	}
	// Only the call that claimed the exchange gets here, so e.reply is
	// written once, by one goroutine.
	e.reply.init(out, report)
	return &e.reply, nil
}

// Refuse answers with ERROR REJECTED; the requester sees Rejected.
func (e *IncomingExchange) Refuse() error {
	if !e.ex.ReplyError(wire.ErrorRejected) {
		return errs.New(errs.KindNoReply, "the exchange was already answered")
	}
	e.req.in.Refuse(wire.CodeRejected)
	return nil
}

// Canceled is closed when the requester abandoned the reply (or the
// connection ended): later reply writes fail with Canceled.
func (e *IncomingExchange) Canceled() <-chan struct{} { return e.ex.Canceled() }

// Close releases the exchange. Unanswered, it sends ERROR NO_REPLY (the
// request may have had an effect) and stops an unread request half.
func (e *IncomingExchange) Close() error {
	if e.ex.ReplyError(wire.ErrorNoReply) {
		e.req.in.Refuse(wire.CodeRejected)
	}
	return nil
}

// ReplyStream is the requester's side of an exchange's reply.
type ReplyStream struct {
	half transport.ReplyHalf // set up by the transport in place (openExchange)
	// in is the reply transfer Recv hands out, allocated with the stream;
	// inTaken makes sure it is handed out once.
	in      IncomingTransfer
	inTaken atomic.Bool
}

// Recv waits for the reply. The peer's ERROR becomes UnknownEndpoint,
// Unsupported, Rejected or NoReply; a connection lost while waiting is
// Indeterminate (never ConnectionLost: the request may have been acted on);
// ctx ending abandons the reply (STOP_SENDING CANCELED).
func (r *ReplyStream) Recv(ctx context.Context) (*IncomingTransfer, error) {
	in, err := r.half.Recv(ctx)
	if err != nil {
		return nil, err
	}
	if !r.inTaken.CompareAndSwap(false, true) {
		return newIncomingTransfer(in), nil // a misused second Recv still gets its own
	}
	r.in.init(in)
	return &r.in, nil
}

// Close abandons a reply not received yet (STOP_SENDING CANCELED).
func (r *ReplyStream) Close() error {
	r.half.Cancel()
	return nil
}

// openExchange opens an exchange on c to c's dialled path, with the report
// meta orders on the request, if any.
func openExchange(ctx context.Context, c *transport.Conn, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	return openExchangeAt(ctx, c, c.Path(), meta)
}

// openExchangeAt is openExchange to path (the leader query's reserved one).
func openExchangeAt(ctx context.Context, c *transport.Conn, path string, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	var h wire.Data // on the stack: the transport encodes it without keeping it
	meta.writeHeader(&h, path)
	report, err := orderReport(c, meta.Report, &h)
	if err != nil {
		return nil, nil, err
	}
	// Both halves of both layers in one allocation: they live as long as
	// the exchange. (Small enough for one size class: over 512 bytes the
	// runtime adds an 8-byte header, and 768 is a class boundary.)
	halves := &struct {
		out       OutgoingTransfer
		outStream transport.OutStream
		reply     ReplyStream
	}{}
	if err := c.OpenBiInto(ctx, &h, &halves.outStream, &halves.reply.half); err != nil {
		report.cancel()
		return nil, nil, err
	}
	halves.out.init(&halves.outStream, report)
	return &halves.out, &halves.reply, nil
}
