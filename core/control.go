package weida

import (
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// subscriberWatcher is a registration that keeps per-subscriber state (a
// Publisher's copy writers) and must hear when a connection ended.
type subscriberWatcher interface {
	subscriberGone(c *transport.Conn)
}

// control receives SUBSCRIBE, UNSUBSCRIBE and CREDIT frames from accepted
// connections. Subscriptions are recorded per connection and path whether
// or not a publisher exists yet (PROTOCOL.md §8.4.2). SUBSCRIBE has no
// reply half, so a connection that goes past max_subscriptions can only be
// closed. A queue port at the frame's path hears it too (queueport.go);
// any other registration ignores CREDIT, as §8.5 allows.
func (l *Listener) control(c *transport.Conn, kind wire.Kind, sub *wire.Subscribe, credit *wire.Credit) {
	switch kind {
	case wire.KindSubscribe:
		if !l.subscribe(c, sub) { // a radio's admission and a dish's terms: radiojoin.go
			// We run on one of c's goroutines: Close would wait for ourselves.
			c.CloseAsync(wire.CodeLimitExceeded, "more than 256 subscriptions (max_subscriptions) on one connection")
		}
	case wire.KindUnsubscribe:
		l.unsubscribe(c, sub)
	}
	l.forwardControl(c, kind, sub, credit)
}

// connClosed is told when an accepted connection ended: its subscriptions
// are dropped wholesale and every registration holding state for it is told.
func (l *Listener) connClosed(c *transport.Conn) {
	l.subs.dropConn(c)
	l.joins.dropConn(c)
	l.fresh.forget(c)
	var watchers []subscriberWatcher
	for _, r := range l.routeSnapshot() {
		if w, ok := r.(subscriberWatcher); ok {
			watchers = append(watchers, w)
		}
	}
	for _, w := range watchers {
		w.subscriberGone(c)
	}
}
