package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Finding a replicated queue's leader: the leader query asked of the
// members a cluster address proposes (cluster.go), on a slot's first
// connection and on every redial.

// redialOnce is one redial attempt: a cluster slot searches for its
// leader, any other dials its address, pinned to its first key.
func (d *dialer) redialOnce(s *slot, pinned Address) (*pooledConn, error) {
	d.mu.Lock()
	cluster := s.cluster != nil
	d.mu.Unlock()
	if cluster {
		return d.dialCluster(d.ctx, s)
	}
	return d.open(d.ctx, pinned)
}

// openSlot makes s's first connection: to its URL, or, for a cluster
// address, to the leader its members name, searching under the redial
// back-off while none is known, until ctx ends.
func (d *dialer) openSlot(ctx context.Context, s *slot) (*pooledConn, error) {
	if s.cluster == nil {
		return d.open(ctx, s.addr)
	}
	var rd redirects
	for {
		pc, err := d.dialCluster(ctx, s)
		if !searchingOn(err) {
			return pc, err
		}
		rd.waits++
		if err := d.backOff(ctx, &rd, err); err != nil {
			return nil, err
		}
	}
}

// dialCluster connects s to its queue's leader, asking every member it may
// ask the leader query. A member that does not serve the query
// (UNKNOWN_ENDPOINT: not a cluster node) is taken as it is. errNoLeader
// when a member answered that it knows no leader, errLeaderUnreached when
// none answered or the leader named could not be reached.
func (d *dialer) dialCluster(ctx context.Context, s *slot) (*pooledConn, error) {
	d.mu.Lock()
	v := s.clusterOfLocked()
	next := v.next
	v.next++
	path := s.addr.Path
	d.mu.Unlock()
	members, err := v.candidates(ctx, next)
	if err != nil {
		return nil, err
	}
	untrusted, leaderless := 0, 0
	var lastUntrusted error
	for _, m := range members {
		answer, self, err := d.askLeader(ctx, m)
		if nl := notLeaderOf(err); nl != nil && nl.Leader == "" {
			leaderless++ // it answered: it knows no leader
		}
		switch {
		case self: // no cluster node: it serves the path itself
			pc, err := d.openLeader(ctx, &leaderTarget{addr: m})
			return d.confirmed(s, pc, err)
		case errs.KindOf(err) == errs.KindUntrusted:
			untrusted, lastUntrusted = untrusted+1, err // a proposal the trust refuses
			continue
		case err != nil:
			continue // unreachable, or no leader known there
		}
		d.mu.Lock()
		stale := v.stale(answer.Term, true)
		d.mu.Unlock()
		if stale {
			continue
		}
		t, err := v.target(answer.Leader, path, d.trust, answerNaming(answer))
		if err != nil {
			return nil, err
		}
		if pc, err := d.openLeader(ctx, t); err == nil || errs.KindOf(err) == errs.KindUntrusted {
			return d.confirmed(s, pc, err)
		}
	}
	if untrusted == len(members) {
		return nil, lastUntrusted // nobody it may trust: no retry finds one
	}
	if leaderless > 0 {
		return nil, errNoLeader
	}
	return nil, errLeaderUnreached
}

// confirmed notes that pc, found by the leader query, need not be asked
// again before a queue operation (ensureLeader).
func (d *dialer) confirmed(s *slot, pc *pooledConn, err error) (*pooledConn, error) {
	if err == nil {
		d.mu.Lock()
		s.checked = pc.conn
		d.mu.Unlock()
	}
	return pc, err
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
	return queryLeader(ctx, pc.conn, m.Path)
}

// queryLeader runs the leader query for path on c (see askLeader).
func queryLeader(ctx context.Context, c *transport.Conn, path string) (wire.LeaderAnswer, bool, error) {
	out, reply, err := openExchangeAt(ctx, c, LeaderPath, TransferMeta{}.whole(len(path)))
	if err != nil {
		return wire.LeaderAnswer{}, false, err
	}
	stop := context.AfterFunc(ctx, func() { out.Cancel(); _ = reply.Close() })
	defer stop()
	if _, err := out.Write([]byte(path)); err == nil {
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
		return wire.LeaderAnswer{}, false, errs.Wrap(errs.KindProtocol, err, "bad leader answer from "+c.RemoteAddr())
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
