package broker

import (
	"context"
	"time"

	weida "github.com/weida-go/weida/core"
)

// reportDeadline bounds how long a settled delivery's report is still
// read for application stages to relay before the producer's report ends
// (BROKER.md §3 REPORT_DEADLINE).
const reportDeadline = 10 * time.Second

// watch reads one delivery's report until it ends and tells the loop the
// one thing it learned: settled, the first time Processed reaches the
// body's length (O-3), or lost, when the report ended without it — the
// consumer finished or reset its report, or its connection went; the
// three are deliberately the same (§8.2). Records for levels the producer
// ordered are relayed on the way (relay.go). It touches no queue state.
func (q *queue) watch(d *delivery, c *weida.Cursors) {
	defer d.cancel()
	settled := q.readReport(d, c)
	if c.Ignored() > 0 {
		// Records that measured nothing (beyond the body, a level not
		// ordered) were dropped as they came; the delivery is counted once.
		q.badReports.Add(1)
	}
	_ = c.Close() // releases the report id, if its stream never came
	d.giveSlot()
	if settled {
		d.msg.producer.finish()
		return
	}
	q.post(lost{d})
}

// readReport reads the delivery's report until it ends, relaying records
// and posting the settlement; it reports whether the delivery settled.
func (q *queue) readReport(d *delivery, c *weida.Cursors) bool {
	ctx := d.ctx
	settled := false
	for {
		snap, more, err := c.Changed(ctx)
		if err != nil || !more {
			return settled
		}
		// A record came, so its stream was taken: the connection holds
		// the report id no more.
		d.giveSlot()
		if settled || !settles(snap, d.msg.bodyLen) {
			d.msg.producer.relay(snap, d.msg)
			continue
		}
		settled = true
		// The loop relays this snapshot once the settlement is in its
		// state, so a producer that heard Processed finds it in Stats;
		// later records wait for that too, since they carry it again.
		applied := make(chan struct{})
		q.post(settledEvent{d: d, snap: snap, applied: applied})
		select {
		case <-applied:
		case <-q.stopped:
			return true
		}
		// The message is gone from the queue; its report is still read,
		// for a while, for the stages the producer ordered.
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(q.ctx, reportDeadline)
		defer stop()
	}
}

// settles reports whether a report snapshot settles a body of bodyLen:
// Processed at exactly its length. A report ending below it settles
// nothing (O-3), and one beyond it is ignored: nobody measured it.
func settles(snap map[uint64]uint64, bodyLen uint64) bool {
	off, ok := snap[weida.Processed]
	return ok && off == bodyLen
}

// settledEvent: the consumer processed the message; it leaves the queue
// and frees its bytes. Then the settling snapshot is relayed to the
// producer and applied is closed.
type settledEvent struct {
	d       *delivery
	snap    map[uint64]uint64
	applied chan struct{}
}

func (e settledEvent) apply(q *queue) {
	d := e.d
	defer close(e.applied)
	defer d.msg.producer.relay(e.snap, d.msg)
	if q.unsettled[d.id] != d {
		return // put back already: a report and a loss raced, the second finds nothing
	}
	delete(q.unsettled, d.id)
	d.sub.unsettled--
	q.budget.release(d.msg.charge)
	q.forget(d.msg)
	if err := q.keep.settle(d.msg); err != nil {
		q.onError(err)
	}
	if q.retiring != nil {
		q.retiring.settled++
	}
	q.pump()
}

// lost: nobody took responsibility for the delivery; it goes back to the head.
type lost struct{ d *delivery }

func (e lost) apply(q *queue) {
	if q.unsettled[e.d.id] == e.d {
		q.requeue(e.d)
		q.pump()
	}
}

// requeue takes an unsettled delivery back: it keeps its charge and goes
// to the head, at once or, while its write is still running, once that
// ended. It counts against its subscription's credit all the same.
func (q *queue) requeue(d *delivery) {
	delete(q.unsettled, d.id)
	d.sub.unsettled--
	d.cancel()
	if d.writing {
		d.returning = true
		return
	}
	q.pushHead(d.msg)
}
