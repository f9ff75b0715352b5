package weida

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Following a replicated queue's leader (docs/CLUSTER.md). A member that
// does not lead the queue answers NOT_LEADER, naming the leader when it
// knows one; the dialer then moves the slot to that leader, or, knowing
// none, asks the members the leader query with the redial back-off until
// the caller's deadline. An operation whose message can be sent again (an
// in-memory payload, refused before its body was read) is then resent.

// MaxRedirects is how many NOT_LEADER hints one operation follows.
const MaxRedirects = 2

// leaderQueryTimeout bounds one member's answer to the leader query, so a
// silent member costs a search that long and no more.
const leaderQueryTimeout = 5 * time.Second

// maxLeaderAnswer bounds the leader query's reply: the URL's cap and the
// map around it.
const maxLeaderAnswer = wire.CapLeader + 32

// errNoLeader says the members a search reached know no leader (an
// election under way, or no quorum); errLeaderUnreached that it reached no
// member, or not the leader they named. Both are retried under back-off.
var (
	errNoLeader        = errs.New(errs.KindNotConnected, "no member knows a leader of the queue yet")
	errLeaderUnreached = errs.New(errs.KindNotConnected, "neither the members nor the leader they named could be reached")
)

// searchingOn reports whether err leaves a search for the leader to go on.
func searchingOn(err error) bool {
	return errors.Is(err, errNoLeader) || errors.Is(err, errLeaderUnreached)
}

// redirects is one operation's account of the hints it followed.
type redirects struct {
	followed int
	waits    int
	deadline time.Time // Config.SendTimeout from the first wait; zero: none
}

// notLeaderOf returns the NOT_LEADER detail err carries, if any.
func notLeaderOf(err error) *errs.NotLeader {
	var nl *errs.NotLeader
	if errors.As(err, &nl) {
		return nl
	}
	return nil
}

// followNotLeader decides, after an operation on c failed with err, whether
// to send it again: true once the slot that carried c is live on the
// leader. Otherwise it returns the error the caller sees: err itself when
// it is no NOT_LEADER, or after MaxRedirects hints, Untrusted for a hint
// outside the caller's trust, Expired when no leader was found before the
// deadline.
func (d *dialer) followNotLeader(ctx context.Context, c *transport.Conn, err error, rd *redirects) (bool, error) {
	nl := notLeaderOf(err)
	if nl == nil || c == nil {
		return false, err
	}
	s := d.slotOf(c)
	if s == nil {
		return false, err
	}
	d.mu.Lock()
	v := s.clusterOfLocked()
	stale := v.stale(nl.Term, nl.HasTerm)
	path := s.addr.Path
	d.mu.Unlock()
	d.startDeadline(rd)
	if nl.Leader != "" && !stale {
		if rd.followed++; rd.followed > MaxRedirects {
			return false, &errs.Error{Kind: errs.KindRejected, Err: err,
				Msg: "not the leader after " + strconv.Itoa(MaxRedirects) + " redirects; the last member named " + nl.Leader}
		}
		t, terr := v.target(nl.Leader, path, d.trust, err)
		if terr != nil {
			return false, terr
		}
		round, cancel := rd.bound(ctx)
		pc, oerr := d.openLeader(round, t)
		cancel()
		if oerr == nil {
			d.repoint(s, c, pc)
			return true, nil
		}
		if errs.KindOf(oerr) == errs.KindUntrusted || ctx.Err() != nil {
			return false, oerr
		}
		err = oerr // the named leader is unreachable: search
	}
	found, err := d.searchUntilDeadline(ctx, s, c, err, rd)
	return found != leaderKnown, err
}

// searchUntilDeadline waits the redial back-off and asks, until a leader
// is live or the deadline passes: first c's own member (it may have won the
// election meanwhile: then the slot stays, leaderConfirmed), then every
// member the slot may ask (leaderMoved once it lives on the leader).
func (d *dialer) searchUntilDeadline(ctx context.Context, s *slot, c *transport.Conn, last error, rd *redirects) (leaderVerdict, error) {
	d.startDeadline(rd)
	for {
		rd.waits++
		if err := d.backOff(ctx, rd, last); err != nil {
			return leaderKnown, err
		}
		round, cancel := rd.bound(ctx)
		if d.leadsNow(round, s, c) {
			cancel()
			return leaderConfirmed, nil
		}
		pc, err := d.dialCluster(round, s)
		cancel()
		if err == nil {
			d.repoint(s, c, pc)
			return leaderMoved, nil
		}
		if errs.KindOf(err) == errs.KindUntrusted {
			return leaderKnown, err
		}
		last = err
	}
}

// leadsNow asks c's member whether it leads s's path now, noting c as
// confirmed when it does.
func (d *dialer) leadsNow(ctx context.Context, s *slot, c *transport.Conn) bool {
	if c.Err() != nil {
		return false
	}
	qctx, cancel := context.WithTimeout(ctx, leaderQueryTimeout)
	answer, self, err := queryLeader(qctx, c, s.addr.Path)
	cancel()
	key, _ := c.Peer()
	d.mu.Lock()
	defer d.mu.Unlock()
	leads := self || err == nil && !s.clusterOfLocked().stale(answer.Term, true) && leaderKey(answer.Leader) == key
	if leads {
		s.checked = c
	}
	return leads
}

// noLeaderFound says why a search for the leader ended at its deadline.
// When the members reached said they know no leader, the cluster lacks a
// quorum (docs/CLUSTER.md §3: "no quorum"); otherwise the members could not be
// reached or their leader could not.
func noLeaderFound(last error) string {
	if nl := notLeaderOf(last); errors.Is(last, errNoLeader) || nl != nil && nl.Leader == "" {
		return "no quorum: no member leads the queue, and none did before the deadline (last: " + last.Error() + ")"
	}
	return "no leader of the queue was found before the deadline (last: " + last.Error() + ")"
}

// startDeadline starts the operation's redirect deadline, SendTimeout
// from its first NOT_LEADER, unless it runs already.
func (d *dialer) startDeadline(rd *redirects) {
	if rd.deadline.IsZero() && d.rt.cfg.SendTimeout > 0 {
		rd.deadline = time.Now().Add(d.rt.cfg.SendTimeout)
	}
}

// bound limits ctx to the search's deadline, so that one round of leader
// queries (up to leaderQueryTimeout per member) cannot outlast it.
func (rd *redirects) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if rd.deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, rd.deadline)
}

// backOff waits the redial delay of the operation's next attempt. Past
// ctx's deadline or rd's it is Expired, carrying last; a canceled ctx is
// Canceled.
func (d *dialer) backOff(ctx context.Context, rd *redirects, last error) error {
	timer := time.NewTimer(d.policy.delay(rd.waits))
	defer timer.Stop()
	var expiry <-chan time.Time
	if !rd.deadline.IsZero() {
		t := time.NewTimer(time.Until(rd.deadline))
		defer t.Stop()
		expiry = t.C
	}
	expired := func() error {
		return &errs.Error{Kind: errs.KindExpired, Err: last, Msg: noLeaderFound(last)}
	}
	select {
	case <-timer.C:
		return nil
	case <-expiry:
		return expired()
	case <-d.ctx.Done():
		return errEndpointClosed()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return expired()
		}
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped looking for the leader")
	}
}

// slotOf finds the slot whose live connection is c.
func (d *dialer) slotOf(c *transport.Conn) *slot {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.slots {
		if s.pc != nil && s.pc.conn == c {
			return s
		}
	}
	return nil
}

// repoint moves s from the connection old to pc, the leader's. When s no
// longer holds old (it was lost meanwhile and its redial runs), pc is
// given back and the redial is left to find the leader.
func (d *dialer) repoint(s *slot, old *transport.Conn, pc *pooledConn) {
	d.mu.Lock()
	if d.closed || s.pc == nil || s.pc.conn != old {
		d.mu.Unlock()
		d.drop(pc)
		return
	}
	prev := s.pc
	s.pc, s.checked = nil, pc.conn // a leader named, or found by the query
	close(s.stop)                  // prev's watch ends without redialling
	d.mu.Unlock()
	d.drop(prev)
	d.goLive(s, pc)
}

// conn is the connection t travels on.
func (t *OutgoingTransfer) conn() *transport.Conn { return t.out.Conn() }
