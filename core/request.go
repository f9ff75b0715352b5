package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/ctxwatch"
)

// Request is one accepted request whose payload was read whole (Replier.Accept,
// later Respondent.Accept). It owes its requester exactly one answer: Reply,
// Refuse, or — when Closed unanswered — NO_REPLY, so the requester never
// hangs. A second answer fails with NoReply. Methods may be called from any
// goroutine, but only the first answer counts.
type Request struct {
	ex      *IncomingExchange
	payload []byte
	// watches abandons the reply being written when its context ends;
	// watch is this request's place there (core/internal/ctxwatch).
	watches *ctxwatch.Set
	watch   ctxwatch.Entry
}

// Payload is the whole request payload.
func (r *Request) Payload() []byte { return r.payload }

// Meta is the request's header and the requester's proved key.
func (r *Request) Meta() IncomingMeta { return r.ex.req.Meta() }

// Reporter answers the report the requester ordered on its request (for
// example Processed once the work is done, before or without the reply);
// nil when it ordered none. The reply is still the exchange's one answer.
func (r *Request) Reporter() *Reporter { return r.ex.Request().Reporter() }

// Reply answers with payload as the whole reply, FIN included. It returns
// once the reply is written; it waits for no receipt. The reply carries the
// request's trace context. When the requester abandoned the reply the write
// fails Canceled; when ctx ends first the reply is reset and the result is
// Canceled.
func (r *Request) Reply(ctx context.Context, payload []byte) error {
	return r.ReplyWith(ctx, TransferMeta{}, payload)
}

// ReplyWith is Reply with the reply's meta. A meta that names no trace
// context takes the request's traceparent and tracestate, so the reply stays
// in the requester's trace unless the application says otherwise.
func (r *Request) ReplyWith(ctx context.Context, meta TransferMeta, payload []byte) error {
	if meta.Traceparent == "" && meta.Tracestate == "" {
		meta.Traceparent, _ = r.ex.req.meta.Traceparent()
		meta.Tracestate, _ = r.ex.req.meta.Tracestate()
	}
	out, err := r.ex.Reply(meta.whole(len(payload)))
	if err != nil {
		return err
	}
	// The watch covers the FIN too: on a unix socket a peer that does not
	// read holds it up.
	r.watches.Watch(ctx, &r.watch, (*cancelOnEnd)(out))
	_, err = out.Write(payload)
	if err == nil {
		_, err = out.Finish()
	}
	if !r.watches.Unwatch(&r.watch) && err != nil {
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "reply abandoned: the reply was reset")
	}
	return err
}

// Refuse answers with ERROR REJECTED: the requester sees Rejected, a
// definite refusal.
func (r *Request) Refuse() error { return r.ex.Refuse() }

// Canceled is closed when the requester abandoned the reply or the
// connection ended; a reply written after that fails Canceled. It also
// closes once this request was answered, since nothing more can be written.
// Select on it beside long work to stop early.
func (r *Request) Canceled() <-chan struct{} { return r.ex.Canceled() }

// Close releases the request. Unanswered, it sends ERROR NO_REPLY: the
// requester sees NoReply (the request was taken and may have had an
// effect). After an answer it does nothing.
func (r *Request) Close() error { return r.ex.Close() }

// neverStops stands in for the stop function of a context.AfterFunc that
// was never registered: the watched context cannot end, so the work it
// guarded was never interrupted.
func neverStops() bool { return true }
