package transport

import "sync/atomic"

// Every inbound stream is served on its own goroutine, because a Handler
// may block (a full endpoint queue is how flow control pushes back). A
// fresh goroutine's stack grows while it decodes a header, and on a local
// transport copying that stack costs more than the rest of a small
// transfer; so a local connection keeps up to maxIdleWorkers finished
// goroutines waiting for its next stream. (QUIC exchanges reuse their
// goroutines differently, accepting in the worker itself: see acceptBidi.)
const maxIdleWorkers = 8

// workerPool counts a connection's waiting workers. A waiting worker
// counted in idle serves exactly the stream whoever claims it hands over.
type workerPool struct {
	handoff chan localStream // buffered: a claimer never waits
	idle    atomic.Int32     // waiting workers nobody claimed yet
}

// dispatchLocal hands s to a waiting worker, or starts one.
func (c *Conn) dispatchLocal(s localStream) {
	if c.workers.claim() {
		c.workers.handoff <- s
		return
	}
	c.wg.Add(1)
	go c.worker(s)
}

// worker serves s, then waits for another stream unless maxIdleWorkers
// wait already; it ends with the connection.
func (c *Conn) worker(s localStream) {
	defer c.wg.Done()
	for {
		c.serveLocal(s)
		if !c.workers.becomeIdle() {
			return
		}
		select {
		case s = <-c.workers.handoff:
		case <-c.done:
			return
		}
	}
}

// claim takes one waiting worker.
func (p *workerPool) claim() bool {
	for {
		n := p.idle.Load()
		if n == 0 {
			return false
		}
		if p.idle.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// becomeIdle counts a worker as waiting, unless maxIdleWorkers are.
func (p *workerPool) becomeIdle() bool {
	for {
		n := p.idle.Load()
		if n >= maxIdleWorkers {
			return false
		}
		if p.idle.CompareAndSwap(n, n+1) {
			return true
		}
	}
}
