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

// errNoLeader says a search found no leader: retried under back-off.
var errNoLeader = errs.New(errs.KindNotConnected, "no member knows a leader of the queue yet")

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
	if nl.Leader != "" && !stale {
		if rd.followed++; rd.followed > MaxRedirects {
			return false, &errs.Error{Kind: errs.KindRejected, Err: err,
				Msg: "not the leader after " + strconv.Itoa(MaxRedirects) + " redirects; the last member named " + nl.Leader}
		}
		t, terr := v.target(nl.Leader, path, d.trust)
		if terr != nil {
			return false, terr
		}
		pc, oerr := d.openLeader(ctx, t)
		if oerr == nil {
			d.repoint(s, c, pc)
			return true, nil
		}
		if errs.KindOf(oerr) == errs.KindUntrusted || ctx.Err() != nil {
			return false, oerr
		}
		err = oerr // the named leader is unreachable: search
	}
	return d.searchUntilDeadline(ctx, s, c, err, rd)
}

// searchUntilDeadline waits the redial back-off and asks the members, until
// a leader is live or the deadline passes.
func (d *dialer) searchUntilDeadline(ctx context.Context, s *slot, c *transport.Conn, last error, rd *redirects) (bool, error) {
	if rd.deadline.IsZero() && d.rt.cfg.SendTimeout > 0 {
		rd.deadline = time.Now().Add(d.rt.cfg.SendTimeout)
	}
	for {
		rd.waits++
		if err := d.backOff(ctx, rd, last); err != nil {
			return false, err
		}
		pc, err := d.dialCluster(ctx, s)
		if err == nil {
			d.repoint(s, c, pc)
			return true, nil
		}
		if errs.KindOf(err) == errs.KindUntrusted {
			return false, err
		}
		last = err
	}
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
		return &errs.Error{Kind: errs.KindExpired, Err: last,
			Msg: "no leader of the queue was found before the deadline (last: " + last.Error() + ")"}
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

// dialCluster connects s to its queue's leader: the hint it holds first,
// then every member it may ask, each with the leader query. A member that
// does not serve the query (UNKNOWN_ENDPOINT: not a cluster node) is taken
// as it is. errNoLeader when nobody named a leader.
func (d *dialer) dialCluster(ctx context.Context, s *slot) (*pooledConn, error) {
	d.mu.Lock()
	v := s.clusterOfLocked()
	hint := v.hint
	v.hint = nil
	path := s.addr.Path
	d.mu.Unlock()
	if hint != nil {
		pc, err := d.openLeader(ctx, hint)
		if err == nil || errs.KindOf(err) == errs.KindUntrusted {
			return pc, err
		}
	}
	d.mu.Lock()
	members, err := v.candidates(ctx)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	untrusted := 0
	var lastUntrusted error
	for _, m := range members {
		answer, self, err := d.askLeader(ctx, m)
		switch {
		case errs.KindOf(err) == errs.KindUntrusted:
			untrusted, lastUntrusted = untrusted+1, err // a proposal the trust refuses
			continue
		case err != nil:
			continue // unreachable, or no leader known there
		case self:
			return d.openLeader(ctx, &leaderTarget{addr: m})
		}
		d.mu.Lock()
		stale := v.stale(answer.Term, true)
		d.mu.Unlock()
		if stale {
			continue
		}
		t, err := v.target(answer.Leader, path, d.trust)
		if err != nil {
			return nil, err
		}
		if pc, err := d.openLeader(ctx, t); err == nil || errs.KindOf(err) == errs.KindUntrusted {
			return pc, err
		}
	}
	if untrusted == len(members) {
		return nil, lastUntrusted // nobody it may trust: no retry finds one
	}
	return nil, errNoLeader
}

// askLeader asks member m who leads m's path. self is true when m does not
// serve the query: it is no cluster node, so it serves the path itself.
func (d *dialer) askLeader(ctx context.Context, m Address) (wire.LeaderAnswer, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, leaderQueryTimeout)
	defer cancel()
	pc, err := d.rt.acquire(ctx, m, d.trust, d.id)
	if err != nil {
		return wire.LeaderAnswer{}, false, err
	}
	defer d.rt.release(pc)
	out, reply, err := openExchangeAt(ctx, pc.conn, LeaderPath, TransferMeta{}.whole(len(m.Path)))
	if err != nil {
		return wire.LeaderAnswer{}, false, err
	}
	stop := context.AfterFunc(ctx, func() { out.Cancel(); _ = reply.Close() })
	defer stop()
	if _, err := out.Write([]byte(m.Path)); err == nil {
		_, _ = out.Finish()
	}
	in, err := reply.Recv(ctx)
	if err != nil {
		k := errs.KindOf(err)
		return wire.LeaderAnswer{}, k == errs.KindUnknownEndpoint || k == errs.KindUnsupported, err
	}
	body, err := in.Collect(maxLeaderAnswer)
	if err != nil {
		return wire.LeaderAnswer{}, false, err
	}
	a, err := wire.DecodeLeaderAnswer(body)
	if err != nil {
		return wire.LeaderAnswer{}, false, errs.Wrap(errs.KindProtocol, err, "bad leader answer from "+m.String())
	}
	return a, false, nil
}

// openLeader opens t for the endpoint; a key the hint named but trust
// judged is checked against the key the handshake proved.
func (d *dialer) openLeader(ctx context.Context, t *leaderTarget) (*pooledConn, error) {
	pc, err := d.open(ctx, t.addr)
	if err != nil || !t.hasKey {
		return pc, err
	}
	if proved, _ := pc.conn.Peer(); proved != t.key {
		d.drop(pc)
		return nil, errs.New(errs.KindUntrusted, "the leader at %s proved key %s, not the %s the cluster named", t.addr.HostPort(), proved, t.key)
	}
	return pc, nil
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
	s.pc = nil
	close(s.stop) // prev's watch ends without redialling
	d.mu.Unlock()
	d.drop(prev)
	d.goLive(s, pc)
}

// conn is the connection t travels on.
func (t *OutgoingTransfer) conn() *transport.Conn { return t.out.Conn() }
