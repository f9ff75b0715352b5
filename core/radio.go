package weida

import (
	"slices"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Radio is the bound side of RADIO/DISH (SEMANTICS.md §2.7): lossy
// fan-out of segments to the dishes that joined with a matching filter.
// A segment is a unit whose parts depend only on each other (a voice
// frame, a GOP); the newest one on a topic is what matters, so opening a
// segment supersedes the older copies still in flight on that topic.
// Nothing on a radio waits for a dish: a copy without room is lost and
// counted for that dish alone (DishDrops). Inbound transfers, exchanges and
// flows at the path are refused Unsupported.
type Radio struct {
	segmentHub
	l     *Listener
	path  string
	route radioRoute

	admitMu   sync.RWMutex
	admission func(Join) bool
}

// Radio registers a radio at path. Joins sent before it existed apply at
// once (without admission: no policy was installed yet).
func (l *Listener) Radio(path string) (*Radio, error) {
	r := &Radio{segmentHub: newSegmentHub(l.rt.cfg.SubscriberBufferBytes), l: l, path: path}
	r.route = radioRoute{radio: r}
	if err := l.register(path, r.route); err != nil {
		return nil, err
	}
	return r, nil
}

// Radio registers a radio at path on the binding's listener.
func (b *Binding) Radio(path string) (*Radio, error) { return b.rt.listener.Radio(path) }

// Path is the registered path.
func (r *Radio) Path() string { return r.path }

// SetAdmission installs fn as the join policy: it is asked before a join
// is recorded and on every repeat, and it re-screens the joins held now.
// A refusal is silent (the dish is told nothing, and no max_subscriptions
// slot is taken). fn must not block; it never runs under the radio's
// locks. A nil fn admits every join.
func (r *Radio) SetAdmission(fn func(Join) bool) {
	r.admitMu.Lock()
	r.admission = fn
	r.admitMu.Unlock()
	if fn == nil {
		return
	}
	for c, filters := range r.l.joinsAt(r.path) {
		for _, f := range filters {
			if !r.admits(c, f) {
				r.l.unsubscribe(c, &wire.Subscribe{Endpoint: r.path, Filter: f})
			}
		}
	}
}

// admits asks the admission policy about one join.
func (r *Radio) admits(c *transport.Conn, filter string) bool {
	r.admitMu.RLock()
	fn := r.admission
	r.admitMu.RUnlock()
	if fn == nil {
		return true
	}
	peer, has := c.Peer()
	return fn(Join{Peer: peer, HasPeer: has, Filter: filter})
}

// Evict withdraws the join with exactly filter from every connection of
// the dish that proved peer, and returns how many it withdrew. The dish
// is told nothing; an anonymous dish cannot be evicted by name.
func (r *Radio) Evict(peer Fingerprint, filter string) int {
	n := 0
	for c, filters := range r.l.joinsAt(r.path) {
		if p, has := c.Peer(); !has || p != peer || !slices.Contains(filters, filter) {
			continue
		}
		r.l.unsubscribe(c, &wire.Subscribe{Endpoint: r.path, Filter: filter})
		n++
	}
	return n
}

// DishCount is the number of dish connections holding a join here.
func (r *Radio) DishCount() int {
	n, _ := r.l.subs.counts(r.path)
	return n
}

// FilterCount is the number of joins (filters) held here over every dish.
func (r *Radio) FilterCount() int {
	_, n := r.l.subs.counts(r.path)
	return n
}

// Dropped is the number of whole segments lost over every dish, whatever
// the cause (layers cut are not counted here; see DishDrops).
func (r *Radio) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// DishDrops lists each connected dish's losses by cause.
func (r *Radio) DishDrops() []DishDrops { return r.dishDrops() }

// Datagram sends payload as a one-packet segment on topic to every
// matching dish, on a datagram flow per (dish, topic), and returns how
// many dishes it was handed to. It is never turned into a stream: a dish
// without datagrams loses it (NoDatagrams), and a payload larger than a
// dish's datagram size is lost for that dish (TooLarge). Like every
// segment it supersedes the older segments of its topic.
func (r *Radio) Datagram(topic string, payload []byte) (int, error) {
	if err := checkTopic(topic); err != nil {
		return 0, err
	}
	targets := r.l.dishTargets(r.path, topic)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errSegmentsClosed()
	}
	tp := r.topicLocked(topicScope{topic: topic})
	number := tp.next
	tp.next++
	r.supersedeLocked(tp)
	body := append(wire.AppendVarint(make([]byte, 0, wire.VarintLen(number)+len(payload)), number), payload...)
	reached := 0
	for _, t := range targets {
		link := r.linkLocked(t.c)
		f, cause := r.flowLocked(link, topic)
		if f == nil {
			r.dropLocked(link, cause)
			continue
		}
		switch err := f.Send(body); {
		case err == nil:
			reached++
		case errs.KindOf(err) == errs.KindTooLarge:
			r.dropLocked(link, dropTooLarge)
		default: // the dish let the flow go: the next datagram opens another
			delete(link.flows, topic)
			r.dropLocked(link, dropNoDatagrams)
		}
	}
	return reached, nil
}

// flowLocked returns link's live flow for topic, opening it now (never
// waiting) when there is none; nil and why when the dish cannot take one:
// no datagrams agreed, its max_flows taken, no stream credit right now, or
// (a unix dish) no reverse connection parked to open the flow on.
func (r *Radio) flowLocked(link *dishLink, topic string) (*transport.OutFlow, dishDropCause) {
	if f := link.flows[topic]; f != nil && f.Err() == nil {
		return f, 0
	}
	delete(link.flows, topic)
	if !link.c.DatagramsAgreed() || len(link.flows) >= transport.MaxFlows {
		return nil, dropNoDatagrams
	}
	f, err := link.c.OpenFlowNow(wire.Flow{Endpoint: r.path, Topic: wire.Some(topic)})
	if errs.KindOf(err) == errs.KindNoParkedConnection {
		return nil, dropNoParked
	}
	if err != nil {
		return nil, dropNoDatagrams
	}
	if link.flows == nil {
		link.flows = make(map[string]*transport.OutFlow)
	}
	link.flows[topic] = f
	return f, 0
}

// Close unregisters the path and resets every copy still in flight; the
// dishes' joins stay recorded for the next radio at the path.
func (r *Radio) Close() error {
	r.l.unregister(r.path, r.route)
	r.shut()
	return nil
}

// checkTopic refuses a topic a dish could not decode.
func checkTopic(topic string) error {
	if len(topic) > wire.CapTopic {
		return errs.New(errs.KindProtocol, "the topic is %d bytes; the wire allows at most %d", len(topic), wire.CapTopic)
	}
	return nil
}

// radioRoute is a radio's registration: it takes nothing inbound, so the
// dispatcher refuses every transfer, exchange and flow Unsupported; it
// hears when a dish's connection ends.
type radioRoute struct{ radio *Radio }

func (radioRoute) acceptsData() bool                  { return false }
func (radioRoute) acceptsExchange() bool              { return false }
func (radioRoute) enqueue(inbound) bool               { return false }
func (r radioRoute) close()                           { r.radio.shut() }
func (r radioRoute) subscriberGone(c *transport.Conn) { r.radio.connGone(c) }
