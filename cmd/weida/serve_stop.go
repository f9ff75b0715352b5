package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// inHand counts what a serve is in the middle of (requests being echoed, a
// transfer being written to stdout), so that a stopping serve takes nothing
// new but lets these end.
type inHand struct {
	noun    string // what is counted, for stderr: "request", "transfer"
	running sync.WaitGroup
	count   atomic.Int64
}

// begin counts one more piece of work; every begin is matched by one end.
func (w *inHand) begin() {
	w.count.Add(1)
	w.running.Add(1)
}

// end counts one piece of work as over.
func (w *inHand) end() {
	w.count.Add(-1)
	w.running.Done()
}

// finish waits for the work in hand, but not past finishBy(); what still
// runs then is cut when the drain closes the connections. When there is
// work to wait for it says so on stderr, so an operator who pressed Ctrl-C
// knows why serve has not exited yet.
func (w *inHand) finish(finishBy func() time.Time, stderr io.Writer) {
	n := w.count.Load()
	if n == 0 {
		return
	}
	deadline := finishBy()
	fmt.Fprintf(stderr, "weida: stopping; waiting up to %v for %d %s(s) in hand\n",
		time.Until(deadline).Round(time.Second), n, w.noun)
	finished := make(chan struct{})
	go func() {
		w.running.Wait()
		close(finished)
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-finished:
	case <-timer.C:
	}
}
