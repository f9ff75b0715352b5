package broker

import (
	"context"
	"io"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/errs"
)

// admitTransfer admits a one-way transfer (BROKER.md §5.3). A refusal
// stops the unread rest with REJECTED; a producer that vanished mid-body
// leaves nothing behind; a refusal after the whole body was read has no
// stream left to stop and is silent (decision 0005: a producer that must
// know uses an exchange). Success is told only to a producer that ordered
// Accepted (or Stored), on its report.
//
// An admission whose outcome is unknown (admitted.go) reports Accepted
// when the queue holds the message, and never Stored.
func (q *queue) admitTransfer(t *weida.IncomingTransfer) {
	if !q.mayProduce(t) {
		_ = t.Close() // STOP_SENDING(REJECTED): nothing read, nothing kept
		return
	}
	if !q.leads() {
		_ = t.RefuseNotLeader() // STOP_SENDING(NOT_LEADER): nothing read
		return
	}
	defer q.admitting(q.port.ProducerConn(t))()
	stop := context.AfterFunc(q.ctx, func() { _ = t.Close() }) // the broker closing stops a slow body
	defer stop()
	m, err := q.receive(t)
	if m == nil {
		q.countFailure(err)
		if _, ok := notLeader(err); ok {
			_ = t.RefuseNotLeader()
			return
		}
		_ = t.Close()
		return
	}
	m.producer = q.producers.start(q, t)
	defer m.producer.admissionEnded()
	switch v := q.conclude(m, err); v.outcome {
	case admissionRefused:
		m.producer.finish()
	case admissionUnknown:
		if v.held {
			m.producer.certify(weida.Accepted, m.bodyLen)
		}
		m.producer.finish()
	default:
		m.producer.certify(v.certificate, m.bodyLen)
		if !v.held {
			m.producer.finish() // no delivery will relay anything
		}
	}
}

// admitExchange admits an exchange (§5.2): the confirm is DATA key 8 on
// the reply half — the queue's certificate, Accepted or Stored — and a
// refusal is ERROR REJECTED. A request the producer abandoned mid-body is
// refused too, which also releases the stream: nothing was admitted, which
// is what REJECTED says.
//
// An admission whose outcome is unknown (the ADMIT record was written but
// its fsync failed, admitted.go) gets no verdict: the exchange closes with
// ERROR NO_REPLY, which the producer sees as NoReply — the request was
// taken and may have had its effect — never Rejected. The broker closing
// mid-body closes the exchange the same way, since it cannot know from
// here whether the store had recorded the message.
func (q *queue) admitExchange(ex *weida.IncomingExchange) {
	req := ex.Request()
	if !q.mayProduce(req) {
		_ = ex.Refuse() // ERROR REJECTED, before a byte of the body is read
		return
	}
	if !q.leads() {
		_ = ex.RefuseNotLeader(q.leaderHint()) // ERROR NOT_LEADER, nothing read
		return
	}
	defer q.admitting(q.port.ProducerConn(req))()
	stop := context.AfterFunc(q.ctx, func() { _ = ex.Close() })
	defer stop()
	m, err := q.receive(req)
	if m == nil {
		q.countFailure(err)
		switch nl, ok := notLeader(err); {
		case ok:
			_ = ex.RefuseNotLeader(nl.Leader, nl.Term)
		case indeterminate(err):
			_ = ex.Close() // NO_REPLY: the next leader may commit it
		default:
			_ = ex.Refuse()
		}
		return
	}
	m.producer = q.producers.start(q, req)
	defer m.producer.admissionEnded()
	switch v := q.conclude(m, err); v.outcome {
	case admissionRefused:
		m.producer.finish()
		_ = ex.Refuse()
	case admissionUnknown:
		m.producer.finish()
		_ = ex.Close()
	default:
		_ = q.port.Confirm(ex, v.certificate)
		m.producer.certify(v.certificate, m.bodyLen)
		if !v.held {
			m.producer.finish()
		}
	}
}

// countFailure counts an admission that made no message: refused by the
// queue (Rejected, or the store's Io), or interrupted by its producer.
func (q *queue) countFailure(err error) {
	q.log.admissionFailed(err)
	switch errs.KindOf(err) {
	case errs.KindRejected, errs.KindIO:
		q.refused.Add(1)
	default:
		q.interrupted.Add(1)
	}
	q.post(nudge{}) // so a wait on the counts looks again
}

// nudge changes nothing; it makes the loop look at its waiters again.
type nudge struct{}

func (nudge) apply(*queue) {}

// receive reads one body (a message and an error together: it was
// recorded short of the queue's certificate, see recorded) under the queue's byte bound and makes it a
// message at the queue's certificate. The room check comes before the
// first byte is read (overhead, topic and content type must fit), and
// every chunk is charged before it is kept, so a body larger than the room
// is refused without being buffered further and the producer's content_len
// never sizes anything (§5.1). On failure nothing is kept or charged.
func (q *queue) receive(t *weida.IncomingTransfer) (*message, error) {
	if q.refusing.Load() {
		return nil, errs.New(errs.KindRejected, "the queue %q is retiring", q.path)
	}
	m := &message{meta: transferMeta(t.Meta())}
	m.charge = int64(PerMessageOverhead + len(m.meta.Topic) + len(m.meta.ContentType))
	if !q.budget.reserve(m.charge) {
		return nil, errs.New(errs.KindRejected, "the queue %q is full", q.path)
	}
	sink, err := q.keep.newBody()
	if err != nil {
		q.budget.release(m.charge)
		q.onError(err)
		return nil, err
	}
	if err := q.readBody(t, sink, m); err != nil {
		sink.abort()
		q.budget.release(m.charge)
		return nil, err
	}
	if err := q.keep.admit(sink, m); err != nil {
		if _, ok := notLeader(err); !ok && !indeterminate(err) {
			q.onError(err) // a lost leadership is the cluster's news, not a failure
		}
		if recorded(err) {
			return m, err // kept, its outcome unknown: conclude decides
		}
		q.budget.release(m.charge)
		return nil, err
	}
	return m, nil
}

// readBody copies t's payload into sink, charging m for each chunk first.
// It reads through a buffer the queue lends (admission_buffers.go): a full
// one when one is free, else a small one it swaps as soon as it can.
func (q *queue) readBody(t *weida.IncomingTransfer, sink bodySink, m *message) error {
	buf := q.readBufs.get()
	defer buf.release()
	for {
		n, rerr := io.ReadFull(t, buf.bytes())
		if n > 0 {
			if !q.budget.reserve(int64(n)) {
				return errs.New(errs.KindRejected, "the message does not fit in the queue %q", q.path)
			}
			m.charge += int64(n)
			m.bodyLen += uint64(n)
			if _, err := sink.Write(buf.bytes()[:n]); err != nil {
				q.onError(err)
				return err
			}
		}
		switch rerr {
		case nil:
			buf.upgrade()
		case io.EOF, io.ErrUnexpectedEOF:
			return nil
		default:
			return rerr // reset or connection lost: an interrupted admission was never a message
		}
	}
}

// transferMeta is what a queue keeps of a producer's header and forwards
// unmodified: content type, trace context (tracestate too, O-8), topic.
func transferMeta(in weida.IncomingMeta) weida.TransferMeta {
	var m weida.TransferMeta
	m.ContentType, _ = in.ContentType()
	m.Traceparent, _ = in.Traceparent()
	m.Tracestate, _ = in.Tracestate()
	m.Topic, _ = in.Topic()
	return m
}

// offer hands an admitted message to the loop; false when the loop did
// not take it (a memory queue began to retire meanwhile, or the broker is
// closing). A memory queue's message is then forgotten and its bytes
// freed; a stored one stays where the next start finds it.
func (q *queue) offer(m *message) bool {
	reply := make(chan bool, 1)
	if q.ask(admitted{m, reply}, reply) {
		return true
	}
	if !q.stored() {
		q.keep.withdraw(m)
		q.budget.release(m.charge)
	}
	return false
}

// stored reports whether the queue's messages live in a store.
func (q *queue) stored() bool { return q.keep.certificate() >= weida.Stored }

// ask posts e and waits for its answer on reply; false when the loop
// stopped before it answered (an answer it gave just before stopping
// still counts).
func (q *queue) ask(e event, reply <-chan bool) bool {
	select {
	case q.events <- e:
	case <-q.stopped:
		return false
	}
	select {
	case ok := <-reply:
		return ok
	case <-q.stopped:
		select {
		case ok := <-reply:
			return ok
		default:
			return false
		}
	}
}

// admitted asks the loop to take a received message into the ready list.
type admitted struct {
	m     *message
	reply chan<- bool
}

func (e admitted) apply(q *queue) {
	// A stored message is recorded already: retire beginning meanwhile
	// cannot unmake it (refusing it would be a Rejected the next start
	// contradicts), so the queue holds it like any other.
	if q.refusing.Load() && !q.stored() {
		e.reply <- false
		return
	}
	if q.repl != nil && !q.repl.hold(e.m) {
		// Committed all the same: the leader that serves the log holds it.
		q.budget.release(e.m.charge)
		e.reply <- false
		return
	}
	q.ready = append(q.ready, e.m)
	q.pump()
	e.reply <- true
}
