package broker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/errs"
)

// queue is one queue at one path. Everything that changes its state —
// ready list, subscriptions and credit, unsettled deliveries, retire —
// happens in one serial loop (BROKER.md §7.1), so the queue has one order
// and one byte budget without locks. Reading producers' bodies, writing
// deliveries and watching consumers' reports happen in goroutines of
// their own that tell the loop what happened (event), so a slow producer
// or consumer never holds the loop (O-5).
type queue struct {
	path         string
	port         *weida.QueuePort
	keep         keeper
	budget       budget
	readBufs     readBuffers // what admissions read bodies through
	maxUnsettled int
	slots        *reportSlots // the report ids each consumer connection may still hold
	onError      func(err error)
	log          *queueLog // logging.go

	ctx      context.Context // ends when the broker closes
	events   chan event      // from the queue's goroutines
	calls    chan func()     // Stats, Retire: run on the loop
	stopped  chan struct{}   // closed when the loop returned
	refusing atomic.Bool     // admission is closed (retire began)
	// Admissions that ended without a message: refused (full, retiring,
	// store failure) or interrupted (the producer reset or vanished).
	refused, interrupted atomic.Uint64
	// Admissions recorded short of the certificate (their fsync failed):
	// held, their producers told no verdict.
	unconfirmed atomic.Uint64
	// Consumer reports ignored: Processed claimed beyond the body.
	badReports atomic.Uint64
	// Reports toward producers given up: past MaxProducerReports on the
	// producer's connection, or unopened within Config.ReportDeadline.
	reportsAbandoned atomic.Uint64
	producers        *producerReports
	guard            *access.Guard  // who may produce and consume (authz.go)
	unserved         error          // set once by New: the store refused this queue
	repl             *replication   // a replicated queue's group (replicated_leader.go); nil otherwise
	wg               sync.WaitGroup // every goroutine the queue started

	// Owned by the loop.
	ready        []*message // head first
	consumers    consumers
	unsettled    map[uint64]*delivery // by queue-local delivery id, never on the wire
	nextDelivery uint64
	delivered    uint64 // deliveries whose bytes were written
	roundRobin   uint64
	retired      bool // delivery stopped for good
	retiring     *retireState
	scratch      []*subscription // the scan's eligible set, reused
	matches      topicMatches    // which subscriptions each topic's filter matches
	waiters      []waiter        // conditions someone waits for (await)
	// deferred holds the messages whose body read failed in a way that
	// may pass, each until its back-off timer fires.
	deferred         map[*message]*time.Timer
	quarantinedCount uint64 // messages taken out for an unreadable body
	// epoch moves on each time a replicated queue stops serving, so the
	// events of deliveries it abandoned find nothing to change.
	epoch uint64
}

// event is something a queue goroutine tells the loop; apply runs on it.
type event interface{ apply(q *queue) }

func newQueue(ctx context.Context, path string, port *weida.QueuePort, keep keeper, cfg Config, slots *reportSlots) *queue {
	q := &queue{path: path, port: port, keep: keep, maxUnsettled: cfg.MaxUnsettled, slots: slots,
		ctx: ctx, events: make(chan event, 256), calls: make(chan func()),
		stopped: make(chan struct{}), unsettled: make(map[uint64]*delivery), deferred: make(map[*message]*time.Timer)}
	q.budget.limit = cfg.QueueBytes
	q.readBufs.limit = lendableChunks(cfg.QueueBytes)
	q.consumers.init()
	q.onError = func(error) {}
	if cfg.OnError != nil {
		q.onError = func(err error) { cfg.OnError(path, err) }
	}
	q.onError = q.logErrors(cfg.Logger, q.onError)
	return q
}

// run is the queue's loop; it returns when the broker closes.
func (q *queue) run() {
	defer close(q.stopped)
	for {
		select {
		case ev := <-q.port.Events():
			q.onPort(ev)
		case e := <-q.events:
			e.apply(q)
		case f := <-q.calls:
			f()
		case leading := <-q.leaderCh():
			q.onLeadership(leading)
		case <-q.ctx.Done():
			q.shutdown()
			return
		}
		q.checkRetired()
		q.wakeWaiters()
	}
}

// waiter is a condition on the loop's state and whom to tell once it holds.
type waiter struct {
	cond func() bool
	done chan struct{}
}

// await waits until cond, run on the loop after each event, holds. It is
// how a caller (a test, the CLI) learns the queue reached a state without
// polling it.
func (q *queue) await(ctx context.Context, cond func() bool) error {
	done := make(chan struct{})
	if err := q.call(ctx, func() {
		if cond() {
			close(done)
			return
		}
		q.waiters = append(q.waiters, waiter{cond: cond, done: done})
	}); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-q.stopped:
		return errClosed()
	case <-ctx.Done():
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for the queue "+q.path)
	}
}

// wakeWaiters releases every waiter whose condition now holds.
func (q *queue) wakeWaiters() {
	kept := q.waiters[:0]
	for _, w := range q.waiters {
		if w.cond() {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	clear(q.waiters[len(kept):])
	q.waiters = kept
}

// onPort dispatches what the port heard.
func (q *queue) onPort(ev weida.PortEvent) {
	switch ev.Kind {
	case weida.PortTransfer:
		q.spawn(func() { q.admitTransfer(ev.Transfer) })
	case weida.PortExchange:
		q.spawn(func() { q.admitExchange(ev.Exchange) })
	case weida.PortSubscribe:
		q.subscribe(ev.Conn, ev.Filter)
	case weida.PortUnsubscribe:
		q.unsubscribe(ev.Conn, ev.Filter)
	case weida.PortCredit:
		q.credit(ev.Conn, ev.Filter, ev.Limit)
	case weida.PortConnGone:
		q.connGone(ev.Conn)
	}
}

// spawn runs f on a goroutine the queue waits for when it closes.
func (q *queue) spawn(f func()) {
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		f()
	}()
}

// post hands e to the loop; after the loop stopped it is dropped (the
// broker is closing and what e would change goes with it).
func (q *queue) post(e event) {
	select {
	case q.events <- e:
	case <-q.stopped:
	}
}

// call runs f on the loop and waits for it.
func (q *queue) call(ctx context.Context, f func()) error {
	done := make(chan struct{})
	select {
	case q.calls <- func() { f(); close(done) }:
	case <-q.stopped:
		return errClosed()
	case <-ctx.Done():
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "the queue "+q.path+" did not answer")
	}
	<-done
	return nil
}

// shutdown ends the loop's work when the broker closes: deliveries in
// flight are canceled by the broker's context; every producer report still
// open ends, reporting nothing more.
func (q *queue) shutdown() {
	q.refusing.Store(true)
	for _, m := range q.ready {
		m.producer.finish()
	}
	for _, d := range q.unsettled {
		d.msg.producer.finish()
	}
	q.stopRetries()
}

func errClosed() error { return errs.New(errs.KindCanceled, "the broker was closed") }
