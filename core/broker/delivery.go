package broker

import (
	"context"
	"io"
	"slices"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/errs"
)

// delivery is one handing-out of a message to one subscription. It is
// unsettled from the moment the scan picks it (the message leaves the
// ready list first, O-5) until the consumer's report settles it or it
// comes back to the head.
type delivery struct {
	id      uint64
	msg     *message
	sub     *subscription // loop-owned; the goroutines use conn
	conn    weida.PortConn
	attempt uint64 // delivery_attempt this write carries: msg.attempts + 1
	epoch   uint64 // the queue's epoch when it was dispatched
	ctx     context.Context
	cancel  context.CancelFunc
	// slot is the report id it holds on its consumer's connection; its
	// goroutine gives it back (giveSlot) once the connection no longer
	// holds that id.
	slot     *connSlots
	slotBack bool // owned by the delivery's goroutine
	// Loop-owned: the write's outcome is not known yet, and the delivery
	// was put back meanwhile (it goes to the head once the write ends, so
	// a write that did reach the consumer counts its attempt first).
	writing, returning bool
}

// pump is the delivery scan of BROKER.md §7.2: while some subscription
// can take one, hand the earliest message at least one eligible
// subscription matches to the next of them in round-robin order. A message
// nobody can take is scanned past, so it never blocks the queue. Every
// round either delivers or returns.
func (q *queue) pump() {
	if q.retired || !q.serving() {
		return
	}
	for q.anyTaker() {
		i, s := q.pick()
		if s == nil {
			return
		}
		if !s.reports.take() {
			continue // another queue took the connection's last slot: it has no room now
		}
		m := q.ready[i]
		q.ready = slices.Delete(q.ready, i, i+1)
		q.dispatch(m, s)
	}
}

// pick finds the earliest ready message some eligible subscription
// matches, and the subscription to take it.
func (q *queue) pick() (int, *subscription) {
	q.matches.refresh(q.consumers.list)
	gen := q.matches.gen
	for i, m := range q.ready {
		if m.unmatchedAt == gen {
			continue // no subscription of this set matches it
		}
		matched := q.matches.of(m.topic())
		if len(matched) == 0 {
			m.unmatchedAt = gen
			continue
		}
		eligible := q.scratch[:0]
		for _, s := range matched {
			if q.canTake(s) {
				eligible = append(eligible, s)
			}
		}
		q.scratch = eligible[:0]
		if len(eligible) > 0 {
			s := eligible[q.roundRobin%uint64(len(eligible))]
			q.roundRobin++
			return i, s
		}
	}
	return -1, nil
}

// dispatch makes m unsettled on s and starts writing it.
func (q *queue) dispatch(m *message, s *subscription) {
	s.delivered++
	s.unsettled++
	q.nextDelivery++
	ctx, cancel := context.WithCancel(q.ctx)
	d := &delivery{id: q.nextDelivery, msg: m, sub: s, conn: s.key.conn, attempt: m.attempts + 1, epoch: q.epoch,
		ctx: ctx, cancel: cancel, slot: s.reports, writing: true}
	q.unsettled[d.id] = d
	q.spawn(func() { q.write(d) })
}

// write is a delivery's goroutine: one one-way transfer toward the
// consumer, ordering Processed and the producer's consumer-answerable
// levels (§7.4), then the watch of its report.
//
// The body is opened before anything goes toward the consumer, so a body
// that cannot be read is the message's failure (unreadable.go), never the
// subscription's.
func (q *queue) write(d *delivery) {
	body, err := q.keep.open(d.msg)
	if err != nil {
		d.giveSlot()
		q.bodyFailed(d, err)
		return
	}
	if err := q.keep.commitDelivery(d.ctx, d.msg, d.attempt); err != nil {
		_ = body.Close()
		d.giveSlot()
		q.post(deliveryUncommitted{d, err})
		return
	}
	meta := d.msg.meta
	meta.ContentLen, meta.HasContentLen = d.msg.bodyLen, true
	meta.Report = weida.ReportOrder{Levels: d.msg.producer.deliveryOrder()}
	out, err := q.port.Deliver(d.ctx, d.conn, meta, d.attempt)
	if err != nil {
		_ = body.Close()
		d.giveSlot() // Deliver released the id it took
		q.post(writeFailed{d})
		return
	}
	cursors := out.Cursors()
	src := &bodySource{r: body}
	err = q.copyBody(d, out, src)
	_ = body.Close()
	if err != nil {
		out.Cancel() // a body that failed its digest is reset, never finished
		_ = cursors.Close()
		d.giveSlot()
		if src.err != nil {
			q.bodyFailed(d, src.err)
		} else {
			q.post(writeFailed{d})
		}
		return
	}
	q.post(written{d})
	q.watch(d, cursors)
}

// giveSlot returns the delivery's report slot, once; only its goroutine
// calls it.
func (d *delivery) giveSlot() {
	if !d.slotBack {
		d.slotBack = true
		d.slot.give()
	}
}

// copyBody writes the body and the FIN; the delivery's context ending
// (the delivery was put back) resets the transfer.
func (q *queue) copyBody(d *delivery, out *weida.OutgoingTransfer, body io.Reader) error {
	stop := context.AfterFunc(d.ctx, out.Cancel)
	err := copyVerified(out, body, d.msg.bodyLen)
	if !stop() {
		return errs.New(errs.KindCanceled, "the delivery was withdrawn")
	}
	if err != nil {
		return err
	}
	_, err = out.Finish()
	return err
}

// written: the bytes reached the consumer's connection, so the attempt
// counts (§9: counted after a successful write, never before).
type written struct{ d *delivery }

func (e written) apply(q *queue) {
	d := e.d
	if d.epoch != q.epoch {
		return // the queue stopped serving since: the message is not its to count
	}
	d.writing = false
	d.msg.attempts = d.attempt
	d.msg.readFailures = 0
	q.delivered++
	if err := q.keep.attempted(d.msg); err != nil {
		q.onError(err)
	}
	if d.returning {
		q.pushHead(d.msg)
		q.pump()
	}
}

// writeFailed: the delivery never reached the consumer. The message goes
// back to the head without counting an attempt, the subscription gets its
// credit back and is skipped until it speaks again (O-5).
type writeFailed struct{ d *delivery }

func (e writeFailed) apply(q *queue) {
	d := e.d
	if d.epoch != q.epoch {
		return
	}
	returning := d.returning
	if !q.takeBack(d) && !returning {
		return
	}
	if !returning {
		d.sub.broken = true
	}
	q.pushHead(d.msg)
	q.pump()
}

// pushHead puts m back at the head of the ready list.
func (q *queue) pushHead(m *message) { q.ready = slices.Insert(q.ready, 0, m) }

// deliveryUncommitted: a replicated queue could not commit the DELIVER
// (this node lost its quorum or its leadership): nothing was written. The
// message goes back to the head, the subscription keeps its standing, and
// the queue stops serving if its node no longer leads.
type deliveryUncommitted struct {
	d   *delivery
	err error
}

func (e deliveryUncommitted) apply(q *queue) {
	d := e.d
	if d.epoch != q.epoch {
		return
	}
	returning := d.returning
	if q.takeBack(d) || returning {
		q.pushHead(d.msg)
	}
	if q.repl == nil {
		q.onError(e.err) // a keeper of this node alone refused: it names why
		return
	}
	if !q.repl.g.IsLeader() {
		q.stepDown() // the leadership signal may trail: stop at once
		return
	}
	if _, ok := notLeader(e.err); !ok && !indeterminate(e.err) {
		q.onError(e.err)
	}
	// Still leading (a commit that failed under load or during a
	// leadership transfer): the scan runs again after a pause, not at once.
	time.AfterFunc(uncommittedRetry, func() { q.post(rescan{}) })
}

// uncommittedRetry is the pause before a queue whose DELIVER failed
// while it still leads scans again.
const uncommittedRetry = 50 * time.Millisecond

// rescan runs the delivery scan again.
type rescan struct{}

func (rescan) apply(q *queue) { q.pump() }
