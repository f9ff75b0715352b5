package access

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/identity"
)

// maxLoggedRefusals bounds the (client, queue, action) triples a Guard
// remembers having logged; past it, refusals are still counted but no
// longer logged, and one line says so.
const maxLoggedRefusals = 4096

// Refusals counts what one queue refused, by kind.
type Refusals struct {
	// Produce counts admissions refused (exchange or one-way).
	Produce uint64
	// Consume counts SUBSCRIBE and CREDIT frames refused.
	Consume uint64
}

type refusalCounters struct{ produce, consume atomic.Uint64 }

type loggedRefusal struct {
	client Client
	path   string
	what   string
}

// Guard is the policy in force and the refusals it has made. Its zero
// value is not usable; build one with NewGuard. It is safe for concurrent
// use: checks read the policy without locking.
type Guard struct {
	policy atomic.Pointer[Policy]
	// pins is the TLS side of a listed-keys policy: the binding's client
	// trust holds it, so a reload changes who may complete a handshake.
	pins *identity.PinSet
	log  *slog.Logger

	mu       sync.Mutex
	counts   map[string]*refusalCounters
	logged   map[loggedRefusal]struct{}
	overflow bool
}

// NewGuard holds p, logging refusals to log (nil: not logged).
func NewGuard(p *Policy, log *slog.Logger) *Guard {
	g := &Guard{pins: identity.NewPinSet(p.ListedKeys()...), log: log,
		counts: make(map[string]*refusalCounters), logged: make(map[loggedRefusal]struct{})}
	g.policy.Store(p)
	return g
}

// Policy is the policy in force now.
func (g *Guard) Policy() *Policy { return g.policy.Load() }

// ClientTrust is the trust a binding serving this guard's broker requires
// of clients under ClientTrusted: the listed keys, as they stand after
// every Replace.
func (g *Guard) ClientTrust() identity.Trust { return identity.TrustByAddress().AndPinSet(g.pins) }

// Replace puts p in force for every later check and handshake. It does not
// change p's connection mode (ClientAuth): a binding's TLS is fixed when
// it binds, so a reload that would need another is refused by the caller
// (SameMode).
func (g *Guard) Replace(p *Policy) {
	g.pins.Replace(p.ListedKeys())
	g.policy.Store(p)
}

// SameMode reports whether p can replace the policy in force without
// rebinding: it demands the same of clients' TLS.
func (g *Guard) SameMode(p *Policy) bool { return g.Policy().ClientAuth() == p.ClientAuth() }

// Check reports whether c may perform a on the queue at path, counting and
// logging (once per client, queue and action) a refusal.
func (g *Guard) Check(c Client, path string, a Action) bool {
	if g.Policy().Allows(c, path, a) {
		return true
	}
	counters := g.counters(path)
	if a == Consume {
		counters.consume.Add(1)
	} else {
		counters.produce.Add(1)
	}
	g.logOnce(c, path, a.String(), "access: refused")
	return false
}

// Refusals returns what the queue at path has refused so far.
func (g *Guard) Refusals(path string) Refusals {
	c := g.counters(path)
	return Refusals{Produce: c.produce.Load(), Consume: c.consume.Load()}
}

func (g *Guard) counters(path string) *refusalCounters {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.counts[path]
	if !ok {
		c = &refusalCounters{}
		g.counts[path] = c
	}
	return c
}

func (g *Guard) logOnce(c Client, path, what, msg string) {
	if g.log == nil {
		return
	}
	key := loggedRefusal{client: c, path: path, what: what}
	g.mu.Lock()
	_, seen := g.logged[key]
	full := !seen && len(g.logged) >= maxLoggedRefusals
	first := full && !g.overflow
	if full {
		g.overflow = true
	} else if !seen {
		g.logged[key] = struct{}{}
	}
	g.mu.Unlock()
	switch {
	case first:
		g.log.Warn("access: too many distinct refusals to log each; counting only", "distinct", maxLoggedRefusals)
	case !seen && !full:
		g.log.Warn(msg, "client", c.String(), "queue", path, "action", what)
	}
}
