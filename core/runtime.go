package weida

import (
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Runtime owns a weida process's connections: the bindings its Listener
// serves and the connections its dialling endpoints made. Create one with
// NewRuntime; Shutdown ends it.
type Runtime struct {
	cfg      Config
	tcfg     transport.Config
	listener *Listener

	mu       sync.Mutex
	closed   bool
	bindings map[*Binding]struct{}
	pool     map[poolKey]*pooledConn
	outboxes map[*outbox]struct{}
	dialers  map[*dialer]struct{}
	writers  map[*copyWriter]struct{} // fan-out writers, flushed by Drain

	dedup dedupState // suppressed repeats and the window's clock (dedup.go)
	// strayReports counts CURSOR streams naming a report id nobody holds.
	strayReports atomic.Uint64
	refusals     refusalGate // bounds refusal log lines (logging.go)
}

// NewRuntime validates cfg (refusing guarantee levels it cannot honour) and
// returns a runtime.
func NewRuntime(cfg Config) (*Runtime, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	rt := &Runtime{cfg: cfg, tcfg: cfg.transport(),
		bindings: make(map[*Binding]struct{}), pool: make(map[poolKey]*pooledConn),
		outboxes: make(map[*outbox]struct{}), dialers: make(map[*dialer]struct{}),
		writers: make(map[*copyWriter]struct{})}
	rt.listener = newListener(rt)
	return rt, nil
}

// Listener is the runtime's namespace of endpoint paths, shared by all its
// bindings.
func (rt *Runtime) Listener() *Listener { return rt.listener }

// Shutdown is abortive: it closes every connection and binding with
// SHUTDOWN, cutting finished-but-unacknowledged transfers short, and waits
// for their goroutines. The runtime is unusable afterwards.
func (rt *Runtime) Shutdown() {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return
	}
	rt.closed = true
	bindings := make([]*Binding, 0, len(rt.bindings))
	for b := range rt.bindings {
		bindings = append(bindings, b)
	}
	conns := make([]*transport.Conn, 0, len(rt.pool))
	for _, pc := range rt.pool {
		conns = append(conns, pc.conn)
	}
	rt.pool = map[poolKey]*pooledConn{}
	boxes := make([]*outbox, 0, len(rt.outboxes))
	for o := range rt.outboxes {
		boxes = append(boxes, o)
	}
	dialers := make([]*dialer, 0, len(rt.dialers))
	for d := range rt.dialers {
		dialers = append(dialers, d)
	}
	rt.mu.Unlock()
	// Endpoints first: their redials and outbox flushers must not race the
	// closing connections.
	for _, o := range boxes {
		o.close()
	}
	for _, d := range dialers {
		d.close()
	}
	// Concurrently: each connection may wait briefly for the
	// acknowledgements it owes its peer before it closes.
	var closing sync.WaitGroup
	for _, b := range bindings {
		closing.Go(func() { b.close(wire.CodeShutdown, "runtime shutdown") })
	}
	for _, c := range conns {
		closing.Go(func() { c.Close(wire.CodeShutdown, "runtime shutdown") })
	}
	closing.Wait()
	rt.listener.closeRoutes()
}

func (rt *Runtime) usable() error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return errs.New(errs.KindRuntime, "the runtime was shut down")
	}
	return nil
}

// outboxed counts bodies waiting in every endpoint's outbox.
func (rt *Runtime) outboxed() int {
	rt.mu.Lock()
	boxes := make([]*outbox, 0, len(rt.outboxes))
	for o := range rt.outboxes {
		boxes = append(boxes, o)
	}
	rt.mu.Unlock()
	n := 0
	for _, o := range boxes {
		n += o.pending()
	}
	return n
}
