package weida

import (
	"sync"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// maxSubscriptions bounds the filters one accepted connection may hold,
// summed over all paths (PROTOCOL.md §13 max_subscriptions).
const maxSubscriptions = 256

// subscriptions is an accepting side's record of SUBSCRIBE frames: per
// connection and path, the filters it holds (PROTOCOL.md §8.4.2). A
// subscription is recorded whether or not a publisher is registered at its
// path yet, so a subscriber may connect before the publisher exists. The
// zero value is ready to use.
type subscriptions struct {
	mu     sync.RWMutex
	byConn map[*transport.Conn]*subConn
	byPath map[string]map[*transport.Conn]subFilters // the same sets, indexed for publishing
}

// subConn is everything one connection subscribed to.
type subConn struct {
	filters int // distinct filters, all paths: bounded by maxSubscriptions
	paths   map[string]subFilters
}

// subFilters is one connection's filter set at one path.
type subFilters map[string]struct{}

// add records filter for c at path. A repeat is idempotent and does not
// count again. It reports false, recording nothing, when the filter would
// take c past maxSubscriptions. A connection that already ended is ignored:
// its streams may still be dispatched after dropConn forgot it.
func (s *subscriptions) add(c *transport.Conn, path, filter string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Err() != nil {
		return true
	}
	sc := s.byConn[c]
	if _, held := sc.lookup(path)[filter]; held {
		return true
	}
	if sc != nil && sc.filters >= maxSubscriptions {
		return false
	}
	if s.byConn == nil {
		s.byConn = make(map[*transport.Conn]*subConn)
		s.byPath = make(map[string]map[*transport.Conn]subFilters)
	}
	if sc == nil {
		sc = &subConn{paths: make(map[string]subFilters)}
		s.byConn[c] = sc
	}
	filters := sc.paths[path]
	if filters == nil {
		filters = make(subFilters)
		sc.paths[path] = filters
		conns := s.byPath[path]
		if conns == nil {
			conns = make(map[*transport.Conn]subFilters)
			s.byPath[path] = conns
		}
		conns[c] = filters
	}
	filters[filter] = struct{}{}
	sc.filters++
	return true
}

// remove forgets filter for c at path; an unknown filter, path or
// connection is ignored.
func (s *subscriptions) remove(c *transport.Conn, path, filter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.byConn[c]
	filters := sc.lookup(path)
	if _, held := filters[filter]; !held {
		return
	}
	delete(filters, filter)
	sc.filters--
	if len(filters) == 0 {
		delete(sc.paths, path)
		s.forgetLocked(c, path)
	}
	if sc.filters == 0 {
		delete(s.byConn, c)
	}
}

// dropConn forgets every subscription of c.
func (s *subscriptions) dropConn(c *transport.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.byConn[c]
	if sc == nil {
		return
	}
	delete(s.byConn, c)
	for path := range sc.paths {
		s.forgetLocked(c, path)
	}
}

func (s *subscriptions) forgetLocked(c *transport.Conn, path string) {
	conns := s.byPath[path]
	delete(conns, c)
	if len(conns) == 0 {
		delete(s.byPath, path)
	}
}

// lookup is the connection's filter set at path; nil when it has none.
func (sc *subConn) lookup(path string) subFilters {
	if sc == nil {
		return nil
	}
	return sc.paths[path]
}

// eachMatch calls fn once for every connection holding at least one filter
// at path that matches topic, however many of its filters match. fn runs
// under the table's read lock and must not call back into the table.
func (s *subscriptions) eachMatch(path, topic string, fn func(c *transport.Conn)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c, filters := range s.byPath[path] {
		if c.Err() == nil && filters.match(topic) {
			fn(c)
		}
	}
}

// counts is the number of connections subscribed at path and the filters
// they hold there.
func (s *subscriptions) counts(path string) (subscribers, filters int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.byPath[path] {
		subscribers++
		filters += len(f)
	}
	return subscribers, filters
}

// match reports whether any filter of the set matches topic.
func (f subFilters) match(topic string) bool {
	for filter := range f {
		if wire.MatchTopic(topic, filter) {
			return true
		}
	}
	return false
}
