package broker

import (
	"context"
	"io"
	"slices"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
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
	if q.retired {
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
	for i, m := range q.ready {
		eligible := q.scratch[:0]
		for _, s := range q.consumers.list {
			if q.canTake(s) && wire.MatchTopic(m.topic(), s.key.filter) {
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
	d := &delivery{id: q.nextDelivery, msg: m, sub: s, conn: s.key.conn, attempt: m.attempts + 1,
		ctx: ctx, cancel: cancel, slot: s.reports, writing: true}
	q.unsettled[d.id] = d
	q.spawn(func() { q.write(d) })
}

// write is a delivery's goroutine: one one-way transfer toward the
// consumer, ordering Processed and the producer's consumer-answerable
// levels (§7.4), then the watch of its report.
func (q *queue) write(d *delivery) {
	meta := d.msg.meta
	meta.ContentLen, meta.HasContentLen = d.msg.bodyLen, true
	meta.Report = weida.ReportOrder{Levels: d.msg.producer.deliveryOrder()}
	out, err := q.port.Deliver(d.ctx, d.conn, meta, d.attempt)
	if err != nil {
		d.giveSlot() // Deliver released the id it took
		q.post(writeFailed{d})
		return
	}
	cursors := out.Cursors()
	if err := q.copyBody(d, out); err != nil {
		out.Cancel()
		_ = cursors.Close()
		d.giveSlot()
		q.post(writeFailed{d})
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
func (q *queue) copyBody(d *delivery, out *weida.OutgoingTransfer) error {
	body, err := q.keep.open(d.msg)
	if err != nil {
		q.onError(err)
		return err
	}
	defer body.Close()
	stop := context.AfterFunc(d.ctx, out.Cancel)
	_, err = io.Copy(out, body)
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
	d.writing = false
	d.msg.attempts = d.attempt
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
	d.writing = false
	d.cancel()
	if d.returning {
		q.pushHead(d.msg)
		q.pump()
		return
	}
	if q.unsettled[d.id] != d {
		return
	}
	delete(q.unsettled, d.id)
	d.sub.delivered--
	d.sub.unsettled--
	d.sub.broken = true
	q.pushHead(d.msg)
	q.pump()
}

// pushHead puts m back at the head of the ready list.
func (q *queue) pushHead(m *message) { q.ready = slices.Insert(q.ready, 0, m) }
