package broker

import (
	"cmp"
	"slices"

	weida "github.com/weida-go/weida/core"
)

// subKey names a subscription: a connection and a filter (BROKER.md §6.1).
type subKey struct {
	conn   weida.PortConn
	filter string
}

// subscription is one consumer of a queue, with its credit (§6.2).
type subscription struct {
	key       subKey
	ordinal   uint64     // its connection's, for the round-robin order
	limit     uint64     // highest CREDIT limit seen: total deliveries it accepts
	delivered uint64     // deliveries counted against limit
	unsettled int        // deliveries out without a settling report
	reports   *connSlots // its connection's report slots, shared with its other subscriptions
	// broken: its last delivery could not be written. It is skipped until
	// it says something again (SUBSCRIBE or CREDIT), or goes.
	broken bool
}

// heldGrant is a CREDIT that arrived before its SUBSCRIBE (§6.2 rule 6).
type heldGrant struct {
	limit uint64
	seq   uint64 // arrival, to evict the oldest
}

// consumers is a queue's subscription table; the loop owns it.
type consumers struct {
	list    []*subscription // ordered by (connection, filter): the round-robin order
	byKey   map[subKey]*subscription
	conns   map[weida.PortConn]uint64 // ordinal per connection, first seen first
	nextOrd uint64
	held    map[subKey]heldGrant
	heldSeq uint64
}

func (cs *consumers) init() {
	cs.byKey = make(map[subKey]*subscription)
	cs.conns = make(map[weida.PortConn]uint64)
	cs.held = make(map[subKey]heldGrant)
}

// subscribe registers a consumer with zero credit, or with the grant held
// for it; a repeat keeps its limit and delivered count, so re-subscribing
// mints no credit.
func (q *queue) subscribe(c weida.PortConn, filter string) {
	if !c.Alive() || !q.mayConsume(c) {
		return // a refused SUBSCRIBE registers nothing (authz.go)
	}
	cs := &q.consumers
	key := subKey{c, filter}
	if s := cs.byKey[key]; s != nil {
		s.broken = false
		q.pump()
		return
	}
	ord, known := cs.conns[c]
	if !known {
		cs.nextOrd++
		ord = cs.nextOrd
		cs.conns[c] = ord
	}
	s := &subscription{key: key, ordinal: ord, reports: q.slots.join(q, c)}
	if g, ok := cs.held[key]; ok {
		s.limit = g.limit
		delete(cs.held, key)
	}
	cs.byKey[key] = s
	i, _ := slices.BinarySearchFunc(cs.list, s, compareSubs)
	cs.list = slices.Insert(cs.list, i, s)
	q.pump()
}

func compareSubs(a, b *subscription) int {
	if c := cmp.Compare(a.ordinal, b.ordinal); c != 0 {
		return c
	}
	return cmp.Compare(a.key.filter, b.key.filter)
}

// credit raises a subscription's limit; a grant not above the standing one
// changes nothing (monotone, so repeated or reordered grants are harmless).
// A grant for a subscription not made yet is held.
func (q *queue) credit(c weida.PortConn, filter string, limit uint64) {
	if !c.Alive() || !q.mayConsume(c) {
		return // a refused grant is neither applied nor held
	}
	cs := &q.consumers
	key := subKey{c, filter}
	if s := cs.byKey[key]; s != nil {
		if limit > s.limit {
			s.limit = limit
			s.broken = false
			q.pump()
		}
		return
	}
	if g, ok := cs.held[key]; ok {
		if limit > g.limit {
			cs.held[key] = heldGrant{limit: limit, seq: g.seq}
		}
		return
	}
	if len(cs.held) >= MaxPendingGrants {
		cs.evictOldestGrant()
	}
	cs.heldSeq++
	cs.held[key] = heldGrant{limit: limit, seq: cs.heldSeq}
}

func (cs *consumers) evictOldestGrant() {
	var oldest subKey
	first := true
	var seq uint64
	for k, g := range cs.held {
		if first || g.seq < seq {
			oldest, seq, first = k, g.seq, false
		}
	}
	delete(cs.held, oldest)
}

// unsubscribe removes one subscription and returns what it held; an
// unknown one is ignored.
func (q *queue) unsubscribe(c weida.PortConn, filter string) {
	key := subKey{c, filter}
	delete(q.consumers.held, key)
	if s := q.consumers.byKey[key]; s != nil {
		q.drop(s)
		q.pump()
	}
}

// connGone removes every subscription and held grant of c and returns
// what they held (§8.3).
func (q *queue) connGone(c weida.PortConn) {
	cs := &q.consumers
	for k := range cs.held {
		if k.conn == c {
			delete(cs.held, k)
		}
	}
	for _, s := range slices.Clone(cs.list) {
		if s.key.conn == c {
			q.drop(s)
		}
	}
	delete(cs.conns, c)
	q.pump()
}

// drop forgets s and puts its unsettled deliveries back at the head.
func (q *queue) drop(s *subscription) {
	cs := &q.consumers
	delete(cs.byKey, s.key)
	if i := slices.Index(cs.list, s); i >= 0 {
		cs.list = slices.Delete(cs.list, i, i+1)
	}
	s.reports.leave(q)
	for _, d := range q.unsettled {
		if d.sub == s {
			q.requeue(d)
		}
	}
}

// canTake reports whether s may get one more delivery now (§7.2): credit
// left, below MaxUnsettled, and its connection below
// MaxConnectionUnsettled.
func (q *queue) canTake(s *subscription) bool {
	return !s.broken && s.delivered < s.limit && s.unsettled < q.maxUnsettled && s.reports.room()
}

// anyTaker reports whether some subscription could take a delivery, so a
// queue nobody can take from is not scanned at all.
func (q *queue) anyTaker() bool {
	for _, s := range q.consumers.list {
		if q.canTake(s) {
			return true
		}
	}
	return false
}
