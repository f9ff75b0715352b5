package broker

import (
	"context"
	"io"
	"sync"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/errs"
)

// Broker is a set of queues, each at an endpoint path of one Runtime's
// Listener, so every binding of that listener serves them. It is an
// ordinary weida program (BROKER.md §1.5) that any process may embed:
// New claims the paths, Serve runs the queues, Retire drains them, Close
// ends them.
type Broker struct {
	cfg    Config
	queues []*queue
	byPath map[string]*queue
	store  io.Closer        // the persistent queues' store, when any queue has one
	node   *cluster.Node    // this member's Raft groups, when Config.Cluster is set
	leader *weida.QueuePort // the leader query's path, on a cluster member
	guard  *access.Guard    // the access policy in force (authz.go)
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	serving bool
	closed  bool
	loops   sync.WaitGroup
}

// New validates cfg, opens the store and recovers the persistent queues
// (when any is configured), then registers every queue's path on rt's
// Listener. Too many queues is LimitExceeded before any path is claimed; a
// runtime that offers an acknowledgement some queue does not reach is a
// Runtime error (RuntimeConfig builds one offering what they all reach; a
// plain runtime works too, offering core); a path another registration
// holds is AlreadyRegistered; a data directory that cannot be used, or a
// corrupt store, is an Io error. On any failure nothing stays claimed or
// open.
func New(rt *weida.Runtime, cfg Config) (*Broker, error) {
	cfg, err := cfg.validated()
	if err != nil {
		return nil, err
	}
	if err := checkOffer(rt.Offered(), cfg.Queues); err != nil {
		return nil, err
	}
	guard, err := newGuard(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Broker{cfg: cfg, byPath: make(map[string]*queue, len(cfg.Queues)), ctx: ctx, cancel: cancel, guard: guard}
	slots := newReportSlots(MaxConnectionUnsettled)
	producers := newProducerReports(MaxProducerReports)
	keepers, store, err := openKeepers(cfg)
	if err != nil {
		cancel()
		return nil, err
	}
	b.store = store
	if err := b.startCluster(keepers); err != nil {
		for _, k := range keepers {
			if k.keeper != nil {
				_ = k.keeper.close()
			}
		}
		if store != nil {
			_ = store.Close()
		}
		cancel()
		return nil, err
	}
	if b.node != nil {
		if b.leader, err = rt.Listener().LeaderPort(); err != nil {
			b.Close()
			return nil, err
		}
	}
	for i, qc := range cfg.Queues {
		port, err := rt.Listener().QueuePort(qc.Path)
		if err != nil {
			for _, k := range keepers[i:] {
				_ = k.keeper.close()
			}
			b.Close()
			return nil, err
		}
		if cfg.ReportDeadline > 0 {
			port.SetReportDeadline(cfg.ReportDeadline)
		}
		q := newQueue(ctx, qc.Path, port, keepers[i].keeper, cfg, slots)
		q.producers = producers
		q.guard = guard
		b.replicate(q, port)
		// A SUBSCRIBE from a key that may not consume is stopped REJECTED
		// before it is recorded (the loop checks again, for a reload between).
		port.SetSubscribeGate(func(c weida.PortConn, _ string) bool { return q.mayConsume(c) })
		q.recover(keepers[i].recovered)
		if err := keepers[i].unserved; err != nil {
			q.unserved = err
			q.onError(err) // the operator hears at start why this queue is not served
		}
		b.queues = append(b.queues, q)
		b.byPath[qc.Path] = q
	}
	return b, nil
}

// Paths lists the queues' paths, in configuration order.
func (b *Broker) Paths() []string {
	out := make([]string, len(b.queues))
	for i, q := range b.queues {
		out[i] = q.path
	}
	return out
}

// Serve runs every queue's loop until ctx ends or Close is called; ctx
// ending closes the broker. Until Serve runs, producers and consumers
// wait (their streams queue at the paths). It may be called once.
func (b *Broker) Serve(ctx context.Context) error {
	b.mu.Lock()
	if b.closed || b.serving {
		b.mu.Unlock()
		return errs.New(errs.KindRuntime, "broker: Serve after Close, or called twice")
	}
	b.serving = true
	if b.leader != nil {
		b.loops.Add(1)
		go func() {
			defer b.loops.Done()
			b.serveLeaderQueries()
		}()
	}
	for _, q := range b.queues {
		b.loops.Add(1)
		go func() {
			defer b.loops.Done()
			q.run()
		}()
	}
	b.mu.Unlock()
	select {
	case <-ctx.Done():
		b.Close()
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "broker stopped")
	case <-b.ctx.Done():
		return nil
	}
}

// Retire drains every queue at once (BROKER.md §12) and sums their
// counts: admission is refused from now on (Rejected, as at a full
// queue), deliveries go on under the credit already granted, and it waits
// until deadline — returning early once nothing is out and nothing more
// can be delivered — then takes back what is still out. The queues then
// neither admit nor deliver; Close ends them. The deadline is mandatory
// and one in the past waits for nothing. Retire is not the transport's
// drain (Runtime.Drain) and certifies nothing about any peer; shut down
// in that order: Retire, Close, then the runtime's drain. It needs Serve
// running; without it, it returns zeros.
func (b *Broker) Retire(deadline time.Time) Retired {
	b.mu.Lock()
	serving := b.serving && !b.closed
	b.mu.Unlock()
	if !serving {
		return Retired{}
	}
	results := make([]Retired, len(b.queues))
	var wg sync.WaitGroup
	for i, q := range b.queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = q.retire(deadline)
		}()
	}
	wg.Wait()
	var sum Retired
	for _, r := range results {
		sum = sum.add(r)
	}
	return sum
}

// Close unregisters the paths (transfers still queued there are refused
// UNKNOWN_ENDPOINT), cancels deliveries in flight, ends every producer
// report still open and closes the store. What a memory queue held is
// gone; a persistent queue's unsettled messages are ready again at the
// next start. It waits for the broker's goroutines; it is idempotent.
func (b *Broker) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.mu.Unlock()
	for _, q := range b.queues {
		_ = q.port.Close()
	}
	if b.leader != nil {
		_ = b.leader.Close()
	}
	b.cancel()
	b.loops.Wait()
	for _, q := range b.queues {
		q.wg.Wait()
		if err := q.keep.close(); err != nil {
			q.onError(err)
		}
	}
	if b.store != nil {
		_ = b.store.Close()
	}
	if b.node != nil {
		b.node.Close()
	}
}

// QueueStats is a queue's state at one moment (BROKER.md §3).
type QueueStats struct {
	Ready     int   // messages held and not out
	Unsettled int   // deliveries out without a settling report
	Bytes     int64 // bytes charged against QueueBytes, admissions in progress included
	Consumers int   // subscriptions
	// Delivered counts deliveries written since the queue started,
	// repeats included.
	Delivered uint64
	// MaxAttempts is the highest delivery count among held messages: a
	// message that keeps coming back names itself here (O-11).
	MaxAttempts uint64
	// Refused counts admissions refused (full, retiring, store failure);
	// Interrupted those its producer cut short (reset, connection lost).
	// Neither left anything behind.
	Refused, Interrupted uint64
	// Unconfirmed counts admissions the store recorded but could not make
	// durable (the fsync after their ADMIT record failed): the queue holds
	// them, and their producers were given no verdict (an exchange ends
	// with NO_REPLY, a report never says Stored), since a crash may or may
	// not take them.
	Unconfirmed uint64
	// BadReports counts deliveries whose consumer reported what nobody
	// measured — an offset beyond the body's length, a level the broker
	// did not order: ignored (it settles nothing, so the delivery stays
	// out until its consumer gives it back or goes), the connection kept.
	BadReports uint64
	// Deferred counts messages set aside while their body cannot be read
	// for a reason that may pass (out of file descriptors, EIO): each is
	// retried after a back-off and is ready again then; Ready leaves them
	// out.
	Deferred int
	// Quarantined counts messages taken out since the queue started
	// because their body can never be read as admitted (its payload is
	// gone, or does not match its digest): never delivered again, each
	// told once to Config.OnError with its seq and digest.
	Quarantined uint64
	// ReportsAbandoned counts reports toward producers given up: ordered
	// past MaxProducerReports on one producer connection, or whose stream
	// the producer gave no credit for within Config.ReportDeadline (it
	// reads none of its streams). Their messages were admitted all the
	// same.
	ReportsAbandoned uint64
	// Unserved is why the store refused to open this persistent queue (its
	// journal, or a payload a Flushed queue certified, is corrupt): nothing
	// is admitted or delivered at its path, its data is left as found, and
	// the broker's other queues are served. Nil when the queue serves.
	Unserved error
	// Access counts what the access rules refused at this queue:
	// admissions, SUBSCRIBE and CREDIT frames (Config.Access).
	Access access.Refusals
	// Cluster is a replicated queue's Raft group as this node sees it:
	// its leader, term, commit and applied index; nil for a queue of this
	// node alone. On a node that does not lead the queue the counts above
	// are this node's, which serves nothing of it.
	Cluster *ClusterStats
}

// Stats reports the queue at path; UnknownEndpoint when no queue is
// there. It needs Serve running (ctx bounds the wait).
func (b *Broker) Stats(ctx context.Context, path string) (QueueStats, error) {
	q := b.byPath[path]
	if q == nil {
		return QueueStats{}, errs.New(errs.KindUnknownEndpoint, "broker: no queue at %q", path)
	}
	var s QueueStats
	err := q.call(ctx, func() { s = q.stats() })
	return s, err
}

func (q *queue) stats() QueueStats {
	s := QueueStats{Ready: len(q.ready), Unsettled: len(q.unsettled), Bytes: q.budget.charged(),
		Consumers: len(q.consumers.list), Delivered: q.delivered, Refused: q.refused.Load(), Interrupted: q.interrupted.Load(),
		Unconfirmed: q.unconfirmed.Load(), BadReports: q.badReports.Load(), Deferred: len(q.deferred), Quarantined: q.quarantinedCount,
		ReportsAbandoned: q.reportsAbandoned.Load(), Unserved: q.unserved,
		Access: q.guard.Refusals(q.path), Cluster: q.clusterStats()}
	for _, m := range q.ready {
		s.MaxAttempts = max(s.MaxAttempts, m.attempts)
	}
	for _, d := range q.unsettled {
		s.MaxAttempts = max(s.MaxAttempts, d.msg.attempts)
	}
	for m := range q.deferred {
		s.MaxAttempts = max(s.MaxAttempts, m.attempts)
	}
	return s
}
