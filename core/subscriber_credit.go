package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Grant sets the credit of this subscriber's subscriptions on a queue
// (CREDIT, PROTOCOL.md §8.5): limit is the total number of messages each
// subscription — one per filter per connection — accepts since it was
// made, absolute rather than a delta, so a lost or repeated grant changes
// nothing. Credit starts at 0, so a queue delivers nothing before the
// first Grant; to take n more, grant what was received plus n. A grant not
// above the standing one is ignored (credit is never lowered). The grant
// goes to every live connection and, with the filters, to every later one:
// a redial makes new subscriptions that start over at zero, so up to limit
// messages may come again there. A publisher that is not a queue ignores
// credit.
//
// A queue holds each delivery unsettled until its Reporter reports
// Processed at the payload's length: receive with RecvReporting.
func (s *Subscriber) Grant(ctx context.Context, limit uint64) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errEndpointClosed()
	}
	if limit <= s.limit {
		s.mu.Unlock()
		return nil
	}
	s.limit = limit
	filters := append([]string(nil), s.filters...)
	conns := s.liveLocked()
	s.mu.Unlock()
	// CREDIT is a queue's: a member that does not lead it would stop it.
	conns, fresh, err := s.d.leaders(ctx, conns)
	if err != nil {
		return err
	}
	if err := subSend(ctx, fresh, wire.KindSubscribe, filters); err != nil {
		return err
	}
	return creditSend(ctx, conns, filters, limit)
}

// Granted is the standing credit grant; 0 before the first Grant.
func (s *Subscriber) Granted() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// RecvReporting is Recv that also hands over the Reporter of the report
// the sender ordered, or nil when it ordered none. A queue's delivery
// always orders Processed: report it at the payload's length once the
// message is handled (and any application stage the producer asked for),
// then Finish. To give a message back, report Processed below its length
// (0: nothing was processed) and Finish: the queue delivers it again. (A
// report with nothing in it opens no stream, so the queue would hold the
// message until the connection ends.) When the payload cannot be received
// (above maxBytes, or cut short) the report is given back that way at once.
func (s *Subscriber) RecvReporting(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, *Reporter, error) {
	if maxBytes < 0 {
		return nil, IncomingMeta{}, nil, errs.New(errs.KindRuntime, "recv: maxBytes must not be negative, got %d", maxBytes)
	}
	t, err := s.RecvStream(ctx)
	if err != nil {
		return nil, IncomingMeta{}, nil, err
	}
	body, err := pullCollect(ctx, t.in, nil, maxBytes)
	if err != nil {
		if r := t.Reporter(); r != nil {
			_ = r.Report(Processed, 0)
			_ = r.Finish()
		}
		return nil, IncomingMeta{}, nil, err
	}
	return body, t.Meta(), t.Reporter(), nil
}

// creditSend sends one CREDIT per filter on each connection; nothing when
// limit is 0, which is every subscription's credit already. A connection
// that ended meanwhile is skipped: its redial sends the grant again.
func creditSend(ctx context.Context, conns []*transport.Conn, filters []string, limit uint64) error {
	if limit == 0 {
		return nil
	}
	for _, c := range conns {
		for _, f := range filters {
			_, err := c.OpenControl(ctx, wire.KindCredit, &wire.Credit{Endpoint: c.Path(), Filter: f, Limit: limit})
			if ctx.Err() != nil {
				return errs.Wrap(errs.KindCanceled, ctx.Err(), "credit not sent")
			}
			if err != nil && c.Err() == nil {
				return err
			}
			if err != nil {
				break
			}
		}
	}
	return nil
}
