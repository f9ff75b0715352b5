package weida

import (
	"sync"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// segmentMaxScopes bounds the topics tracked per connection (PROTOCOL.md
// §13 max_sequence_scopes); a topic beyond it is untracked, so every
// arrival on it counts as fresh.
const segmentMaxScopes = 1024

// freshTable is a receiver's segment freshness (PROTOCOL.md §11.7): per
// connection and topic (a connection serves one path here), the newest
// segment seen and the layers of it that arrived. Segment numbers never go
// backwards: an arrival not newer is stale. The zero value is ready.
type freshTable struct {
	mu     sync.Mutex
	byConn map[*transport.Conn]map[string]*freshness
}

// freshness is the newest segment seen on a scope and its layers seen.
type freshness struct {
	newest uint64
	layers uint16
}

// admit reports whether (segment, layer) on topic is fresh for c — newer
// than the newest seen, or the newest with that layer not seen yet — and
// records it.
func (t *freshTable) admit(c *transport.Conn, topic string, segment uint64, layer int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	topics := t.byConn[c]
	if topics == nil {
		if t.byConn == nil {
			t.byConn = make(map[*transport.Conn]map[string]*freshness)
		}
		topics = make(map[string]*freshness)
		t.byConn[c] = topics
	}
	f := topics[topic]
	if f == nil {
		if len(topics) >= segmentMaxScopes {
			return true
		}
		topics[topic] = &freshness{newest: segment, layers: 1 << layer}
		return true
	}
	switch {
	case segment > f.newest:
		f.newest, f.layers = segment, 1<<layer
		return true
	case segment == f.newest && f.layers&(1<<layer) == 0:
		f.layers |= 1 << layer
		return true
	}
	return false
}

// admitData checks a one-way transfer: anything but a segment passes, a
// stale segment is refused CANCELED before any endpoint sees it.
func (t *freshTable) admitData(in *transport.InStream) bool {
	h := &in.Header
	if !h.Segment.Ok || t.admit(in.Conn(), h.Topic.V, h.Segment.V, int(h.Layer)) {
		return true
	}
	in.Refuse(wire.CodeCanceled)
	return false
}

// forget drops c's scopes: a new connection is a new numbering.
func (t *freshTable) forget(c *transport.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byConn, c)
}

// forgetEnded drops the scopes of every connection that ended.
func (t *freshTable) forgetEnded() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.byConn {
		if c.Err() != nil {
			delete(t.byConn, c)
		}
	}
}
