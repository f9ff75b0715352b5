package broker

import (
	"sync"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/cluster"
)

// A replicated queue is served only by its group's leader (docs/CLUSTER.md
// §4). The loop follows leadership: when this node comes to lead, it waits
// until everything earlier terms committed is applied, then makes the
// FSM's live set its ready list and serves; when it stops leading, it stops
// at once, closes its consumers' connections with NOT_LEADER (they redial
// and find the new leader) and forgets what it held: the new leader
// builds the same queue from the same log. Safety does not rest on the
// loop's view, which may lag: every admission and delivery commits an
// entry first, and a node that lost its quorum can commit none.

// replication is a replicated queue's link to its Raft group.
type replication struct {
	g    *cluster.Group
	keep *raftKeeper
	// admitting counts, per producer connection, the admissions under way
	// (their goroutines hold it; mu guards it).
	mu        sync.Mutex
	admitting map[weida.PortConn]int
	// Loop-owned.
	serving bool                // built from the FSM in this term
	gen     uint64              // moves on at each leadership signal: a build of an earlier one is stale
	held    map[uint64]*message // by seq: ready, unsettled and deferred
}

// leaderCh is the group's leadership signal, nil (never ready) for a
// queue of this node alone.
func (q *queue) leaderCh() <-chan bool {
	if q.repl == nil {
		return nil
	}
	return q.repl.g.LeaderCh()
}

// serving reports whether the queue may deliver now: always for a queue of
// this node alone, for a replicated one once it was built this term.
func (q *queue) serving() bool { return q.repl == nil || q.repl.serving }

// leads reports whether this node's group leads the queue now (not yet
// built perhaps): where admissions and subscriptions may go on.
func (q *queue) leads() bool { return q.repl == nil || q.repl.g.IsLeader() }

// onLeadership acts on a leadership change the group signalled.
func (q *queue) onLeadership(leading bool) {
	if !leading || q.repl.serving {
		// A true while serving means a loss and a win collapsed into one
		// signal (the channel keeps only the latest): another node may have
		// led meanwhile, so what this one holds is stale either way.
		q.stepDown()
	}
	q.repl.gen++
	if !leading {
		return
	}
	if q.refusing.Load() {
		// A retiring member that comes to lead again hands it on (it would
		// serve nothing): the drain is under way.
		q.spawn(func() { _ = q.repl.g.TransferLeadership() })
		return
	}
	gen, g := q.repl.gen, q.repl.g
	q.spawn(func() {
		// Barrier waits for entries of earlier terms this node holds. It
		// fails when the leadership is lost (a false follows), but also for
		// a moment under load or while a leadership transfer runs: while
		// this node leads it is tried again.
		backoff := 10 * time.Millisecond
		for {
			if err := g.Barrier(q.ctx); err == nil {
				q.post(builtFromLog{gen})
				return
			}
			if !g.IsLeader() || q.ctx.Err() != nil {
				return
			}
			select {
			case <-q.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
		}
	})
}

// builtFromLog: everything committed before this term is applied; the
// live set becomes the ready list, in seq order, with the attempts the
// log committed. gen is the leadership signal it answers: a build for an
// earlier signal may have read an FSM behind a later term's entries.
type builtFromLog struct{ gen uint64 }

func (e builtFromLog) apply(q *queue) {
	r := q.repl
	if r.serving || e.gen != r.gen || !r.g.IsLeader() {
		return
	}
	for _, lm := range r.g.FSM.LiveMessages() {
		if r.held[lm.Seq] != nil {
			continue
		}
		m := messageFromLog(lm)
		q.budget.used.Add(m.charge)
		q.ready = append(q.ready, m)
		r.held[m.id] = m
	}
	r.serving = true
	q.log.leading(q.repl.g.Stats().Term, len(q.ready))
	q.pump()
}

// messageFromLog is a live message of the FSM as the queue holds it.
func messageFromLog(lm cluster.Message) *message {
	m := &message{id: lm.Seq, bodyLen: lm.Length, digest: lm.Digest, attempts: lm.Attempts}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	m.meta = weida.TransferMeta{Topic: str(lm.Topic), ContentType: str(lm.ContentType),
		Traceparent: str(lm.Traceparent), Tracestate: str(lm.Tracestate)}
	if lm.Inline() {
		m.body = memBody{lm.Body}
	}
	m.charge = int64(PerMessageOverhead+len(m.meta.Topic)+len(m.meta.ContentType)) + int64(lm.Length)
	return m
}

// stepDown stops serving: deliveries in flight are canceled (their
// events find nothing: the epoch moved on), the connections of its
// consumers, of producers awaiting a report and of admissions under way
// are closed with NOT_LEADER, producers' reports end, and the queue forgets
// what it held and frees its budget. Settlements not yet committed are
// dropped: the next leader redelivers those messages.
func (q *queue) stepDown() {
	r := q.repl
	q.epoch++
	for _, s := range q.consumers.list {
		s.key.conn.CloseNotLeader()
	}
	q.consumers = consumers{}
	q.consumers.init()
	for _, d := range q.unsettled {
		d.cancel()
	}
	for _, m := range r.held {
		q.budget.release(m.charge)
		if m.producer != nil && m.producer.conn.Alive() {
			m.producer.conn.CloseNotLeader()
		}
		m.producer.finish()
	}
	r.mu.Lock()
	for conn := range r.admitting {
		conn.CloseNotLeader()
	}
	r.mu.Unlock()
	for _, t := range q.deferred {
		t.Stop()
	}
	clear(q.deferred)
	clear(q.unsettled)
	clear(r.held)
	q.ready = nil
	r.keep.settles.drop()
	if r.serving {
		q.log.notLeading()
	}
	r.serving = false
}

// leaderHint is the queue's leader as this node knows it (url empty while
// none is), for a NOT_LEADER answer.
func (q *queue) leaderHint() (url string, term uint64) {
	url, term, _ = q.repl.g.Leader()
	return url, term
}

// forget drops a message that left the queue for good from what a
// replicated queue holds.
func (q *queue) forget(m *message) {
	if q.repl != nil {
		delete(q.repl.held, m.id)
	}
}

// hold takes an admitted message into what the queue holds; false when
// the queue is not serving (the leader that builds from the log will hold
// it) or holds that seq already (built from the log first).
func (r *replication) hold(m *message) bool {
	if !r.serving || r.held[m.id] != nil {
		return false
	}
	r.held[m.id] = m
	return true
}

// admitting notes an admission from conn under way until the returned
// func runs, so that losing the leadership closes its connection too. A
// queue of this node alone notes nothing.
func (q *queue) admitting(conn weida.PortConn) func() {
	r := q.repl
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	r.admitting[conn]++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.admitting[conn]--; r.admitting[conn] == 0 {
			delete(r.admitting, conn)
		}
		r.mu.Unlock()
	}
}
