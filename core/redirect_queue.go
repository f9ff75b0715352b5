package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
)

// Before a queue operation whose refusal could not name the leader (a
// one-way transfer, a CREDIT), the member is asked once per connection
// whether it leads the path.

// leaders is conns without those whose member does not lead the path
// (ensureLeader): their slots moved to the leader, whose connection got
// the subscriber's filters and grant when it was made. fresh are the ones
// a cluster member confirmed only now: a SUBSCRIBE sent on them before may
// have been stopped while it did not lead yet (an election under way), so
// it is sent again (a repeated SUBSCRIBE is the same subscription).
func (d *dialer) leaders(ctx context.Context, conns []*transport.Conn) (leading, fresh []*transport.Conn, err error) {
	for _, c := range conns {
		v, err := d.checkLeader(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		switch v {
		case leaderMoved:
			continue
		case leaderConfirmed:
			fresh = append(fresh, c)
		}
		leading = append(leading, c)
	}
	return leading, fresh, nil
}

// queueLeader is ensureLeader before a transfer whose report order names a
// queue's levels (the transfer is a queue producer's); false for any other.
func (d *dialer) queueLeader(ctx context.Context, c *transport.Conn, meta TransferMeta) (moved bool, err error) {
	if !queueLevels(meta.Report) {
		return false, nil
	}
	return d.ensureLeader(ctx, c)
}

// queueLevels reports whether an order names a level only a queue reports
// (Accepted, Stored, Replicated): the sender is a queue's producer.
func queueLevels(o ReportOrder) bool {
	for _, l := range o.Levels {
		if l >= Accepted && l <= Replicated {
			return true
		}
	}
	return false
}

// leaderVerdict is what checkLeader found.
type leaderVerdict int

const (
	leaderKnown     leaderVerdict = iota // confirmed before (or no slot holds the connection)
	leaderNoCluster                      // the member serves no leader query, or gave no answer
	leaderConfirmed                      // the member said, now, that it leads
	leaderMoved                          // the slot now lives on another connection
)

// ensureLeader confirms, once per connection and before its first queue
// operation, that c's member leads the path: a one-way transfer, SUBSCRIBE
// or CREDIT to a member that does not is stopped with NOT_LEADER, and a
// stop cannot name the leader nor be relied on to arrive before the
// transport receipt. moved is true when the slot now lives on another
// connection (pick again). A member that does not serve the leader query
// (no cluster) is taken as it is.
func (d *dialer) ensureLeader(ctx context.Context, c *transport.Conn) (moved bool, err error) {
	v, err := d.checkLeader(ctx, c)
	return v == leaderMoved, err
}

// checkLeader is ensureLeader, saying what it found.
func (d *dialer) checkLeader(ctx context.Context, c *transport.Conn) (leaderVerdict, error) {
	s := d.slotOf(c)
	if s == nil {
		return leaderKnown, nil
	}
	d.mu.Lock()
	done := s.checked == c
	path := s.addr.Path
	d.mu.Unlock()
	if done {
		return leaderKnown, nil
	}
	qctx, cancel := context.WithTimeout(ctx, leaderQueryTimeout)
	answer, self, err := queryLeader(qctx, c, path)
	cancel()
	if ctx.Err() != nil {
		return leaderKnown, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped asking who leads the queue")
	}
	key, _ := c.Peer()
	d.mu.Lock()
	if self || err != nil && notLeaderOf(err) == nil {
		s.checked = c // no cluster node, or no answer: nothing to follow
		d.mu.Unlock()
		return leaderNoCluster, nil
	}
	v := s.clusterOfLocked()
	fresh := err == nil && !v.stale(answer.Term, true)
	if fresh && leaderKey(answer.Leader) == key {
		s.checked = c // it leads
		d.mu.Unlock()
		return leaderConfirmed, nil
	}
	d.mu.Unlock()
	if fresh {
		if t, terr := v.target(answer.Leader, path, d.trust, answerNaming(answer)); terr != nil {
			return leaderKnown, terr
		} else if pc, oerr := d.openLeader(ctx, t); oerr == nil {
			d.repoint(s, c, pc)
			return leaderMoved, nil
		}
	}
	if err == nil {
		err = errLeaderUnreached // a stale answer, or a leader out of reach
	}
	var rd redirects
	return d.searchUntilDeadline(ctx, s, c, err, &rd)
}

// leaderKey is the key a leader URL names (zero when it names none).
func leaderKey(url string) Fingerprint {
	a, err := identity.ParseAddress(url)
	if err != nil {
		return Fingerprint{}
	}
	return a.Fingerprint
}
