package weida

import (
	"sync"
	"time"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Join is a dish's request to join a radio, as an admission policy sees it.
type Join struct {
	Peer    Fingerprint // the key the dish proved; valid when HasPeer
	HasPeer bool        // false for an anonymous dish
	Filter  string      // the topic filter it joins with
}

// joinTerms are what a dish stated with one filter (SUBSCRIBE keys 2, 3).
type joinTerms struct {
	maxAge   time.Duration // 0: no latency budget
	maxLayer int           // noLayerCap: no cap
}

const noLayerCap = -1

func termsOf(sub *wire.Subscribe) joinTerms {
	t := joinTerms{maxLayer: noLayerCap}
	if sub.MaxAgeMs.Ok {
		t.maxAge = time.Duration(min(sub.MaxAgeMs.V, uint64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	}
	if sub.MaxLayer.Ok {
		t.maxLayer = int(sub.MaxLayer.V) // the decoder refused values above 15
	}
	return t
}

// joinTable keeps the terms of the subscriptions that stated any, per
// connection, path and filter. An entry exists only beside a subscription
// the table of subscriptions holds, so max_subscriptions bounds it too.
type joinTable struct {
	mu     sync.Mutex
	byConn map[*transport.Conn]map[joinKey]joinTerms
}

type joinKey struct{ path, filter string }

// set records sub's terms; a join re-sent without terms loses them.
func (j *joinTable) set(c *transport.Conn, sub *wire.Subscribe) {
	j.mu.Lock()
	defer j.mu.Unlock()
	key := joinKey{sub.Endpoint, sub.Filter}
	if !sub.MaxAgeMs.Ok && !sub.MaxLayer.Ok {
		delete(j.byConn[c], key)
		return
	}
	if j.byConn == nil {
		j.byConn = make(map[*transport.Conn]map[joinKey]joinTerms)
	}
	if j.byConn[c] == nil {
		j.byConn[c] = make(map[joinKey]joinTerms)
	}
	j.byConn[c][key] = termsOf(sub)
}

func (j *joinTable) remove(c *transport.Conn, path, filter string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.byConn[c], joinKey{path, filter})
	if len(j.byConn[c]) == 0 {
		delete(j.byConn, c)
	}
}

func (j *joinTable) dropConn(c *transport.Conn) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.byConn, c)
}

// termsLocked is the terms of one join; none stated means no budget, no cap.
func (j *joinTable) termsLocked(c *transport.Conn, path, filter string) joinTerms {
	if t, ok := j.byConn[c][joinKey{path, filter}]; ok {
		return t
	}
	return joinTerms{maxLayer: noLayerCap}
}

// subscribe records a SUBSCRIBE. At a radio's path the radio's admission
// policy is asked first (also on a repeat); a refusal is silent: nothing is
// recorded and a join already held for the filter is withdrawn. It reports
// false only when the connection went past max_subscriptions.
func (l *Listener) subscribe(c *transport.Conn, sub *wire.Subscribe) bool {
	if r, ok := l.lookup(sub.Endpoint).(radioRoute); ok && !r.radio.admits(c, sub.Filter) {
		l.unsubscribe(c, sub)
		return true
	}
	if !l.subs.add(c, sub.Endpoint, sub.Filter) {
		return false
	}
	l.joins.set(c, sub)
	return true
}

// unsubscribe forgets a subscription and its terms.
func (l *Listener) unsubscribe(c *transport.Conn, sub *wire.Subscribe) {
	l.subs.remove(c, sub.Endpoint, sub.Filter)
	l.joins.remove(c, sub.Endpoint, sub.Filter)
}

// dishTarget is one dish connection a segment on a topic goes to, with the
// terms that apply over its matching filters: the smallest max_age and
// the largest layer cap (a matching filter without a cap means no cap).
type dishTarget struct {
	c        *transport.Conn
	maxAge   time.Duration
	maxLayer int
}

// dishTargets lists the live connections holding a filter at path that
// matches topic.
func (l *Listener) dishTargets(path, topic string) []dishTarget {
	l.subs.mu.RLock()
	defer l.subs.mu.RUnlock()
	l.joins.mu.Lock()
	defer l.joins.mu.Unlock()
	var out []dishTarget
	for c, filters := range l.subs.byPath[path] {
		if c.Err() != nil {
			continue
		}
		t, matched, largest := dishTarget{c: c}, false, noLayerCap
		for f := range filters {
			if !wire.MatchTopic(topic, f) {
				continue
			}
			matched = true
			terms := l.joins.termsLocked(c, path, f)
			if terms.maxAge > 0 && (t.maxAge == 0 || terms.maxAge < t.maxAge) {
				t.maxAge = terms.maxAge
			}
			if terms.maxLayer == noLayerCap {
				largest = wire.MaxLayer
			} else {
				largest = max(largest, terms.maxLayer)
			}
		}
		if matched {
			t.maxLayer = largest
			out = append(out, t)
		}
	}
	return out
}

// joinsAt lists every (connection, filter) held at path.
func (l *Listener) joinsAt(path string) map[*transport.Conn][]string {
	l.subs.mu.RLock()
	defer l.subs.mu.RUnlock()
	out := make(map[*transport.Conn][]string, len(l.subs.byPath[path]))
	for c, filters := range l.subs.byPath[path] {
		for f := range filters {
			out[c] = append(out[c], f)
		}
	}
	return out
}
