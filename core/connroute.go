package weida

import (
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// connRouter is the Handler of a dialled connection. A dialled connection
// serves exactly one path (the one it was dialled for), so at most one
// endpoint claims what the peer opens toward it: a Subscriber's fan-out
// copies, a dialling Paired's inbound transfers. Without a claim everything
// is refused UNKNOWN_ENDPOINT.
type connRouter struct {
	rt    *Runtime // whose sequencing and dedup counters the connection feeds
	mu    sync.Mutex
	route route
}

// claim makes r the receiver of this connection's inbound streams.
func (cr *connRouter) claim(r route) error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.route != nil && cr.route != r {
		return errs.New(errs.KindAlreadyRegistered, "another endpoint already receives on this connection")
	}
	cr.route = r
	return nil
}

// release drops r's claim.
func (cr *connRouter) release(r route) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.route == r {
		cr.route = nil
	}
}

func (cr *connRouter) find(c *transport.Conn, path string) route {
	if path != c.Path() {
		return nil
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.route
}

// Data implements transport.Handler.
func (cr *connRouter) Data(c *transport.Conn, in *transport.InStream) {
	dispatchData(cr.rt, cr.find(c, in.Header.Endpoint.V), in)
}

// Exchange implements transport.Handler.
func (cr *connRouter) Exchange(c *transport.Conn, ex *transport.Exchange) {
	dispatchExchange(cr.rt, cr.find(c, ex.In.Header.Endpoint.V), ex)
}

// Control implements transport.Handler: a dialling side registers no
// publishers or queues, so it may ignore these frames (§8.4.2).
func (cr *connRouter) Control(*transport.Conn, wire.Kind, *wire.Subscribe, *wire.Credit) {}

// Cursor implements transport.Handler: the report the stream names on its
// connection reads it; an unknown report_id is stopped CANCELED (cursors.go).
func (cr *connRouter) Cursor(c *transport.Conn, head wire.CursorHead, s *transport.CursorStream) {
	serveCursor(cr.rt, c, head, s)
}

// Closed implements transport.Handler; slots watch their connections, and
// the connection's sequencing state goes with it.
func (cr *connRouter) Closed(c *transport.Conn, err error) { seqForget(c); cr.rt.logConnClosed(c, err) }
