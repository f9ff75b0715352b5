package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// IncomingExchange is an exchange on the responder side: a request to read
// and exactly one answer — Reply, Refuse, or (when released unanswered by
// Close) NO_REPLY, so the requester never hangs.
type IncomingExchange struct {
	ex  *transport.Exchange
	req *IncomingTransfer
}

func newIncomingExchange(ex *transport.Exchange) *IncomingExchange {
	return &IncomingExchange{ex: ex, req: newIncomingTransfer(ex.In)}
}

// Request is the request half: read it like any incoming transfer.
func (e *IncomingExchange) Request() *IncomingTransfer { return e.req }

// Reply opens the reply half. Write the reply and Finish it. A second answer
// fails with NoReply. meta.Report may order a report on the reply: the
// requester then reports toward this side on a stream of its own, and the
// reply half still carries exactly one DATA frame (PROTOCOL.md §8.3.5).
func (e *IncomingExchange) Reply(meta TransferMeta) (*OutgoingTransfer, error) {
	h := meta.header("")
	report, err := orderReport(e.ex.Conn(), meta.Report, &h)
	if err != nil {
		return nil, err
	}
	out, err := e.ex.Reply(&h)
	if err != nil {
		report.cancel()
		return nil, err
	}
	return newOutgoingTransfer(out, report), nil
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
	half *transport.ReplyHalf
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
	return newIncomingTransfer(in), nil
}

// Close abandons a reply not received yet (STOP_SENDING CANCELED).
func (r *ReplyStream) Close() error {
	r.half.Cancel()
	return nil
}

// openExchange opens an exchange on c to c's dialled path, with the report
// meta orders on the request, if any.
func openExchange(ctx context.Context, c *transport.Conn, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	h := meta.header(c.Path())
	report, err := orderReport(c, meta.Report, &h)
	if err != nil {
		return nil, nil, err
	}
	out, reply, err := c.OpenBi(ctx, &h)
	if err != nil {
		report.cancel()
		return nil, nil, err
	}
	return newOutgoingTransfer(out, report), &ReplyStream{half: reply}, nil
}
