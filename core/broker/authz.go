package broker

import (
	"context"
	"log/slog"
	"slices"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// Access control (SEMANTICS.md §8.4): every decision is taken on the key a
// client proved in its handshake and the path its stream was dispatched
// to. A producer without permission is refused REJECTED before a byte of
// its body is read; a consumer without permission gets nothing: its
// SUBSCRIBE is stopped REJECTED at the port's gate (SUBSCRIBE has no reply
// half), and a CREDIT, or a SUBSCRIBE that a reload overtook, holds no
// subscription and no credit. A CURSOR from another connection never
// reaches a delivery (report ids belong to the connection the delivery
// went to): core stops it CANCELED and counts it in Runtime.StrayReports.

// newGuard compiles cfg.Access against cfg's queues.
func newGuard(cfg Config) (*access.Guard, error) {
	p, err := compileAccess(cfg, cfg.Access)
	if err != nil {
		return nil, err
	}
	log := cfg.AccessLog
	if log == nil {
		log = slog.Default()
	}
	return access.NewGuard(p, log), nil
}

// compileAccess is the policy rules describe for cfg's queues; nil rules
// are the open policy.
func compileAccess(cfg Config, rules *access.Rules) (*access.Policy, error) {
	if rules == nil {
		return access.Open(), nil
	}
	paths := make([]string, len(cfg.Queues))
	for i, q := range cfg.Queues {
		paths[i] = q.Path
	}
	p, err := access.Compile(*rules, paths, cfg.Loopback, access.ReadKeyFile)
	if err != nil {
		return nil, errs.Wrap(errs.KindRuntime, err, "broker config")
	}
	return p, nil
}

// Access is the access policy in force (its Describe says it in a line).
func (b *Broker) Access() *access.Policy { return b.guard.Policy() }

// BindOptions are what a binding serving this broker must demand of
// clients' TLS under its access rules: a listed key (judged by the list in
// force, reloads included), any key, or nothing when anonymous clients are
// admitted (the broker then judges each transfer's key itself).
func (b *Broker) BindOptions() []weida.BindOption {
	switch b.guard.Policy().ClientAuth() {
	case identity.ClientTrusted:
		return []weida.BindOption{weida.RequireClient(b.guard.ClientTrust())}
	case identity.ClientAnyKey:
		return []weida.BindOption{weida.RequireAnyClientKey()}
	}
	return nil
}

// ReloadAccess compiles rules (nil: every queue open) and puts them in
// force without dropping a connection: later admissions, subscriptions,
// grants and handshakes are judged by them, and every subscription whose
// key lost the right to consume is dropped, its deliveries back at the
// head of the queue as if its connection had ended (the consumer must
// SUBSCRIBE again once it regains it). Rules that cannot be compiled, or
// that would demand another TLS mode of clients than the bindings were
// bound with, are refused and the policy in force stays. It returns once
// every queue applied the change; ctx bounds that wait.
func (b *Broker) ReloadAccess(ctx context.Context, rules *access.Rules) error {
	p, err := compileAccess(b.cfg, rules)
	if err != nil {
		return err
	}
	if !b.guard.SameMode(p) {
		return errs.New(errs.KindRuntime, "access: the new rules need clients to %s, but the broker's bindings %s; restart the broker to change that",
			describeAuth(p.ClientAuth()), describeAuth(b.guard.Policy().ClientAuth()))
	}
	b.guard.Replace(p)
	for _, q := range b.queues {
		if err := q.call(ctx, q.revokeConsumers); err != nil {
			return err
		}
	}
	return nil
}

func describeAuth(a identity.ClientAuth) string {
	switch a {
	case identity.ClientTrusted:
		return "present a listed key"
	case identity.ClientAnyKey:
		return "present a key"
	}
	return "present a key or none"
}

// clientOf is who a connection proved to be.
func clientOf(c weida.PortConn) access.Client {
	fp, ok := c.Peer()
	return access.Client{Key: fp, HasKey: ok}
}

// producerOf is who sent t, by the key its connection proved (never a
// header's claim).
func producerOf(t *weida.IncomingTransfer) access.Client {
	fp, ok := t.Meta().Peer()
	return access.Client{Key: fp, HasKey: ok}
}

// mayProduce checks, counts and logs a producer's admission. It runs on
// the admission's goroutine, so a refusal nudges the loop for whoever
// waits on the counts.
func (q *queue) mayProduce(t *weida.IncomingTransfer) bool {
	if q.guard.Check(producerOf(t), q.path, access.Produce) {
		return true
	}
	q.post(nudge{})
	return false
}

// mayConsume checks, counts and logs a consumer's SUBSCRIBE or CREDIT.
func (q *queue) mayConsume(c weida.PortConn) bool {
	return q.guard.Check(clientOf(c), q.path, access.Consume)
}

// revokeConsumers drops, on the loop, every subscription and held grant
// whose key the policy in force no longer lets consume here.
func (q *queue) revokeConsumers() {
	p := q.guard.Policy()
	cs := &q.consumers
	for k := range cs.held {
		if !p.Allows(clientOf(k.conn), q.path, access.Consume) {
			delete(cs.held, k)
		}
	}
	for _, s := range slices.Clone(cs.list) {
		if !p.Allows(clientOf(s.key.conn), q.path, access.Consume) {
			q.drop(s)
		}
	}
	q.pump()
}
