package broker

import (
	"io"
	"time"

	"github.com/weida-go/weida/core/broker/store"
)

// A body the queue cannot read back is that message's problem, never its
// consumer's (issue 18 finding 2): the delivery gives its credit back, the
// subscription stays eligible, and every other message keeps flowing. A
// failure that may pass (out of file descriptors, EIO) sets the message
// aside and retries it after a back-off; one that cannot (the payload is
// gone, or its bytes do not match their digest) quarantines it: it leaves
// the queue, counted and reported once, and is never delivered again.

// The back-off of a body whose read failed in a way that may pass: it
// doubles from retryFirst with each failure in a row, up to retryMax.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = 10 * time.Second
)

// retryDelay is the wait after the n-th failure in a row (n >= 1).
func retryDelay(n int) time.Duration {
	d := retryFirst
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// bodySource is a delivery's body as it is copied out: it keeps the
// body's own read failure apart from the consumer's write failure.
type bodySource struct {
	r   io.Reader
	err error // the read failure, io.EOF aside
}

func (s *bodySource) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// copyVerified copies a body of bodyLen bytes to out, always holding back
// its last byte until the body has ended cleanly: a store's reader checks
// the digest only at the end, and returns its failure in place of io.EOF,
// so a consumer must not get every byte of a body that fails it (with
// content_len known, it could take the body as whole before the reset).
// A body that fits the buffer goes out in one write.
func copyVerified(out io.Writer, body io.Reader, bodyLen uint64) error {
	pool := &smallChunkPool
	if bodyLen >= smallChunk {
		pool = &chunkPool
	}
	bp := pool.Get().(*[]byte)
	defer pool.Put(bp)
	buf := *bp
	held := 0 // 1 when buf[0] is the last byte read, not written yet
	for {
		n, err := io.ReadFull(body, buf[held:])
		n += held
		switch err {
		case nil:
			if _, err := out.Write(buf[:n-1]); err != nil {
				return err
			}
			buf[0], held = buf[n-1], 1
		case io.EOF, io.ErrUnexpectedEOF:
			_, err := out.Write(buf[:n])
			return err
		default:
			return err
		}
	}
}

// bodyFailed tells the loop a delivery's body could not be read. It runs
// on the delivery's goroutine, so the quarantine's fsync never holds the
// loop.
func (q *queue) bodyFailed(d *delivery, err error) {
	if store.IsTransient(err) {
		q.post(readDeferred{d, err})
		return
	}
	q.post(quarantined{d: d, err: err, recordErr: q.keep.quarantine(d.msg, err.Error())})
}

// takeBack undoes a delivery that never reached its consumer: it is no
// longer out, and its subscription gets the credit back. It reports false
// when the delivery was put back meanwhile (its consumer went, or retire
// ended): the message is the caller's all the same.
func (q *queue) takeBack(d *delivery) bool {
	d.writing = false
	d.cancel()
	if q.unsettled[d.id] != d {
		return false
	}
	delete(q.unsettled, d.id)
	d.sub.delivered--
	d.sub.unsettled--
	return true
}

// readDeferred: the body could not be read now; the message waits out its
// back-off away from the ready list, so it never holds the head.
type readDeferred struct {
	d   *delivery
	err error
}

func (e readDeferred) apply(q *queue) {
	if e.d.epoch != q.epoch {
		return
	}
	q.takeBack(e.d)
	m := e.d.msg
	m.readFailures++
	q.onError(e.err)
	q.deferred[m] = time.AfterFunc(retryDelay(m.readFailures), func() { q.post(retryRead{m}) })
	q.pump()
}

// retryRead: a deferred message's back-off passed; it is ready again, at
// the head where it came from.
type retryRead struct{ m *message }

func (e retryRead) apply(q *queue) {
	if _, ok := q.deferred[e.m]; !ok {
		return
	}
	delete(q.deferred, e.m)
	q.pushHead(e.m)
	q.pump()
}

// quarantined: the body can never be read as it was admitted. The
// message leaves the queue for good (the store recorded it, unless
// recordErr says it could not) and frees its bytes; its producer's report
// ends without a word from any consumer.
type quarantined struct {
	d         *delivery
	err       error
	recordErr error
}

func (e quarantined) apply(q *queue) {
	if e.d.epoch != q.epoch {
		return
	}
	q.takeBack(e.d)
	m := e.d.msg
	q.forget(m)
	q.quarantinedCount++
	q.onError(e.err) // the store's error names the seq and the digest
	if e.recordErr != nil {
		q.onError(e.recordErr)
	}
	q.budget.release(m.charge)
	m.producer.finish()
	q.pump()
}

// stopRetries ends every back-off when the queue stops: the messages
// stay where a restart finds them.
func (q *queue) stopRetries() {
	for m, t := range q.deferred {
		t.Stop()
		m.producer.finish()
	}
}
