package weida

import (
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// QueuePort is the low-level registration an L2 queue builds on (BROKER.md
// §1.5: the broker is an ordinary weida program). At one path it takes
// one-way transfers and exchanges, like an Acceptor, and it also hears, for
// that path, what consumers say: SUBSCRIBE, UNSUBSCRIBE, CREDIT and the end
// of a connection that said any of them. Everything arrives as PortEvents on
// one bounded channel, in the order the streams were dispatched (separate
// streams are not ordered among themselves on the wire, so neither are
// their events).
//
// A port decides nothing: it refuses nothing it was handed, keeps no
// credit and delivers nothing on its own. Its owner answers each producer
// (Confirm, Refuse, ProducerReporter) and opens deliveries toward a
// consumer's connection (Deliver).
type QueuePort struct {
	l      *Listener
	path   string
	events chan PortEvent
	done   chan struct{}
	once   sync.Once

	mu   sync.Mutex
	seen map[*transport.Conn]struct{} // connections that sent control frames here

	deadline atomic.Int64 // the reports' open deadline in ns; 0 is DefaultReportDeadline
	gate     atomic.Pointer[func(PortConn, string) bool]
	leader   atomic.Pointer[func() bool] // SetLeaderGate (leader.go)
}

// SetSubscribeGate has gate judge every later SUBSCRIBE for the port's path
// before it is recorded: false stops the SUBSCRIBE's stream with REJECTED
// (SUBSCRIBE has no reply half, so the stop is what the subscriber sees)
// and no PortSubscribe event is posted. gate runs on the stream's
// goroutine and must not block; nil removes it.
func (p *QueuePort) SetSubscribeGate(gate func(c PortConn, filter string) bool) {
	if gate == nil {
		p.gate.Store(nil)
		return
	}
	p.gate.Store(&gate)
}

// judgeSubscribe is the gate's verdict as a stop code (0: take it).
func (p *QueuePort) judgeSubscribe(c *transport.Conn, filter string) wire.AppCode {
	if !p.leads() {
		return wire.CodeNotLeader
	}
	if g := p.gate.Load(); g != nil && !(*g)(PortConn{c: c}, filter) {
		return wire.CodeRejected
	}
	return 0
}

// PortEventKind says what a PortEvent carries.
type PortEventKind int

// The kinds of PortEvent.
const (
	// PortTransfer is a one-way transfer from a producer (Transfer).
	PortTransfer PortEventKind = iota + 1
	// PortExchange is an exchange from a producer (Exchange).
	PortExchange
	// PortSubscribe is a SUBSCRIBE on Conn for Filter. It is never
	// answered; a repeat is the same subscription.
	PortSubscribe
	// PortUnsubscribe is an UNSUBSCRIBE on Conn for Filter.
	PortUnsubscribe
	// PortCredit is a CREDIT on Conn for Filter: Limit is the absolute,
	// cumulative number of deliveries the subscription accepts since it was
	// made. It may arrive before its SUBSCRIBE (a separate stream).
	PortCredit
	// PortConnGone says Conn ended: every subscription it held is gone.
	// It comes once, and only for a connection that sent this port a
	// control frame.
	PortConnGone
)

// String names the kind.
func (k PortEventKind) String() string {
	switch k {
	case PortTransfer:
		return "transfer"
	case PortExchange:
		return "exchange"
	case PortSubscribe:
		return "subscribe"
	case PortUnsubscribe:
		return "unsubscribe"
	case PortCredit:
		return "credit"
	case PortConnGone:
		return "conn-gone"
	}
	return "unknown"
}

// PortEvent is one thing that happened at a QueuePort; Kind says which
// fields are set. A control event can trail its connection's end by a
// moment (the frame and the loss race on separate goroutines): check
// Conn.Alive before acting on one.
type PortEvent struct {
	Kind     PortEventKind
	Transfer *IncomingTransfer // PortTransfer
	Exchange *IncomingExchange // PortExchange
	Conn     PortConn          // control kinds
	Filter   string            // PortSubscribe, PortUnsubscribe, PortCredit
	Limit    uint64            // PortCredit
}

// QueuePort registers a queue port at path. Its event channel holds
// Config.EndpointQueue events; while it is full, producers' streams wait
// (QUIC flow control pushes back) and so do consumers' control streams.
func (l *Listener) QueuePort(path string) (*QueuePort, error) {
	p := l.newQueuePort(path)
	if err := l.register(path, portRoute{p}); err != nil {
		return nil, err
	}
	return p, nil
}

func (l *Listener) newQueuePort(path string) *QueuePort {
	return &QueuePort{l: l, path: path,
		events: make(chan PortEvent, l.rt.cfg.EndpointQueue),
		done:   make(chan struct{}), seen: make(map[*transport.Conn]struct{})}
}

// QueuePort registers a queue port at path on the binding's listener.
func (b *Binding) QueuePort(path string) (*QueuePort, error) { return b.rt.listener.QueuePort(path) }

// Path is the registered path.
func (p *QueuePort) Path() string { return p.path }

// Events is the port's event channel. It is never closed: watch Done too.
func (p *QueuePort) Events() <-chan PortEvent { return p.events }

// Done is closed once the port is closed (by Close or Runtime.Shutdown).
func (p *QueuePort) Done() <-chan struct{} { return p.done }

// Close unregisters the path. Producers' transfers and exchanges still
// queued are refused UNKNOWN_ENDPOINT, as if the path had never been
// there; later streams at the path are refused by ordinary dispatch.
func (p *QueuePort) Close() error {
	p.l.unregister(p.path, portRoute{p})
	p.shut()
	return nil
}

func (p *QueuePort) shut() {
	p.once.Do(func() { close(p.done) })
	for {
		select {
		case ev := <-p.events:
			refuseUnknown(ev)
		default:
			return
		}
	}
}

// refuseUnknown refuses a producer's stream left in a closed port.
func refuseUnknown(ev PortEvent) {
	switch ev.Kind {
	case PortTransfer:
		ev.Transfer.in.Refuse(wire.CodeUnknownEndpoint)
	case PortExchange:
		ev.Exchange.ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
	}
}

// post hands ev over, waiting while the channel is full; false when the
// port closed or the connection ended first (ev was not taken).
func (p *QueuePort) post(ev PortEvent, conn <-chan struct{}) bool {
	select {
	case p.events <- ev:
		return true
	case <-p.done:
		return false
	case <-conn:
		return false
	}
}

// control forwards a consumer's frame for this path. Frames of a
// connection that already ended are dropped: its PortConnGone is, or was,
// on its way.
func (p *QueuePort) control(c *transport.Conn, ev PortEvent) {
	p.mu.Lock()
	if c.Err() != nil {
		p.mu.Unlock()
		return
	}
	p.seen[c] = struct{}{}
	p.mu.Unlock()
	ev.Conn = PortConn{c: c}
	p.post(ev, c.Done())
}

// gone posts PortConnGone once for a connection that spoke to this port.
func (p *QueuePort) gone(c *transport.Conn) {
	p.mu.Lock()
	_, spoke := p.seen[c]
	delete(p.seen, c)
	p.mu.Unlock()
	if spoke {
		p.post(PortEvent{Kind: PortConnGone, Conn: PortConn{c: c}}, nil)
	}
}

// portRoute is the route a QueuePort registers: comparable by its port, so
// unregister finds it.
type portRoute struct{ p *QueuePort }

func (r portRoute) acceptsData() bool     { return true }
func (r portRoute) acceptsExchange() bool { return true }
func (r portRoute) close()                { r.p.shut() }

func (r portRoute) enqueue(it inbound) bool {
	ev := PortEvent{Kind: PortTransfer}
	if it.ex != nil {
		ev = PortEvent{Kind: PortExchange, Exchange: newIncomingExchange(it.ex)}
	} else {
		ev.Transfer = it.transfer()
	}
	return r.p.post(ev, it.conn().Done())
}

// subscriberGone implements subscriberWatcher (control.go).
func (r portRoute) subscriberGone(c *transport.Conn) { r.p.gone(c) }

// forwardControl hands a SUBSCRIBE, UNSUBSCRIBE or CREDIT to the queue
// port registered at its path, if any; other registrations ignore CREDIT
// (PROTOCOL.md §8.5 rule 6).
func (l *Listener) forwardControl(c *transport.Conn, kind wire.Kind, sub *wire.Subscribe, credit *wire.Credit) {
	var path string
	ev := PortEvent{}
	switch {
	case kind == wire.KindCredit && credit != nil:
		path, ev = credit.Endpoint, PortEvent{Kind: PortCredit, Filter: credit.Filter, Limit: credit.Limit}
	case kind == wire.KindSubscribe && sub != nil:
		path, ev = sub.Endpoint, PortEvent{Kind: PortSubscribe, Filter: sub.Filter}
	case kind == wire.KindUnsubscribe && sub != nil:
		path, ev = sub.Endpoint, PortEvent{Kind: PortUnsubscribe, Filter: sub.Filter}
	default:
		return
	}
	if r, ok := l.lookup(path).(portRoute); ok {
		r.p.control(c, ev)
	}
}
