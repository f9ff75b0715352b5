package weida

import (
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Publisher is the bound side of Pub/Sub (SEMANTICS.md §2.3). Subscribers
// dial its path and send filters; each publication goes to every
// subscriber connection with a matching filter, one copy per connection on
// its own stream, filtered here so a topic nobody wants never crosses the
// network. Nothing waits for a subscriber: a copy that does not fit a
// subscriber's bounds is dropped for that subscriber alone and counted.
// Where PerProducer ordering was agreed, each copy is numbered before it
// may be dropped, so the subscriber sees the drop as Missed (sequence.go).
// Inbound transfers and exchanges at the path are refused Unsupported.
type Publisher struct {
	l      *Listener
	path   string
	route  publisherRoute
	queue  int   // copies queued per subscriber (endpoint_queue)
	budget int64 // payload bytes queued per subscriber (subscriber_buffer_bytes)
	drops  pubsubDrops

	mu      sync.Mutex
	closed  bool
	writers map[*transport.Conn]*copyWriter // one per subscriber connection, made at its first copy
	copies  map[*fanoutCopy]struct{}        // streamed copies still being written
}

// Publisher registers a publisher at path. The path's early subscriptions
// (sent before it existed) apply at once.
func (l *Listener) Publisher(path string) (*Publisher, error) {
	p := &Publisher{l: l, path: path, queue: l.rt.cfg.EndpointQueue, budget: l.rt.cfg.SubscriberBufferBytes,
		writers: make(map[*transport.Conn]*copyWriter), copies: make(map[*fanoutCopy]struct{})}
	p.route = publisherRoute{p: p}
	if err := l.register(path, p.route); err != nil {
		return nil, err
	}
	return p, nil
}

// Publisher registers a publisher at path on the binding's listener.
func (b *Binding) Publisher(path string) (*Publisher, error) { return b.rt.listener.Publisher(path) }

// Path is the registered path.
func (p *Publisher) Path() string { return p.path }

// Publish sends payload under topic to every matching subscriber and
// returns how many it reached, 0 being normal. It never waits: "reached"
// means the copy was queued for that subscriber's writer. A payload larger
// than the subscriber budget (8 MiB) fails with LimitExceeded before any
// subscriber is charged. The caller may reuse payload once Publish
// returns: copies that go out at once are written from it, and those that
// queue share one copy of it, made only when the first has to queue.
func (p *Publisher) Publish(topic string, payload []byte) (int, error) {
	return p.PublishWith(topic, payload, TransferMeta{})
}

// PublishWith is Publish with a content type and trace context for every
// copy; the content length is always the payload's.
func (p *Publisher) PublishWith(topic string, payload []byte, meta TransferMeta) (int, error) {
	if int64(len(payload)) > p.budget {
		return 0, errs.New(errs.KindLimitExceeded, "publish: a payload of %d bytes exceeds the subscriber budget of %d bytes; stream it with Open", len(payload), p.budget)
	}
	meta.ContentLen, meta.HasContentLen = uint64(len(payload)), true
	h, err := p.header(topic, meta)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, errPublisherClosed()
	}
	shared := sharedPayload{src: payload}
	reached := 0
	p.l.subs.eachMatch(p.path, topic, func(c *transport.Conn) {
		if cause := p.writerLocked(c).offer(h, &shared); cause != DropNone {
			p.drops.count(topic, cause)
			return
		}
		reached++
	})
	return reached, nil
}

// Open starts a streamed publication under topic to the subscribers that
// match now; see FanOut.
func (p *Publisher) Open(topic string) (*FanOut, error) { return p.OpenWith(topic, TransferMeta{}) }

// OpenWith is Open with metadata for every copy (content type, trace
// context, and an advisory content length when the caller knows it).
func (p *Publisher) OpenWith(topic string, meta TransferMeta) (*FanOut, error) {
	h, err := p.header(topic, meta)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errPublisherClosed()
	}
	f := &FanOut{p: p, topic: topic}
	p.l.subs.eachMatch(p.path, topic, func(c *transport.Conn) {
		numbered := h
		seqNumber(c, &numbered) // before the copy can be lost, as Publish does (copywriter.go)
		cp := newFanoutCopy(f, c, p.writerLocked(c), numbered)
		p.copies[cp] = struct{}{}
		f.copies = append(f.copies, cp)
		go cp.run()
	})
	return f, nil
}

// SubscriberCount is the number of connections holding at least one
// filter at this path.
func (p *Publisher) SubscriberCount() int {
	n, _ := p.l.subs.counts(p.path)
	return n
}

// FilterCount is the number of filters held at this path, over all
// subscriber connections.
func (p *Publisher) FilterCount() int {
	_, n := p.l.subs.counts(p.path)
	return n
}

// Dropped is the number of copies dropped, whatever the cause and topic.
func (p *Publisher) Dropped() uint64 { return p.drops.totalCount() }

// DroppedOn is the drops of one topic by cause; false when none was
// counted for it (or the topic table was full when its first drop came:
// beyond max_sequence_scopes topics, drops count only in Dropped).
func (p *Publisher) DroppedOn(topic string) (DropCounts, bool) { return p.drops.on(topic) }

// Close unregisters the path. Copies still queued are dropped and streamed
// copies still being written are reset; the subscribers' filters stay
// recorded for the next publisher at the path.
func (p *Publisher) Close() error {
	p.l.unregister(p.path, p.route)
	p.shut()
	return nil
}

// shut stops every writer and streamed copy.
func (p *Publisher) shut() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	writers, copies := p.writers, p.copies
	p.writers, p.copies = nil, nil
	p.mu.Unlock()
	for _, w := range writers {
		w.close()
	}
	for cp := range copies {
		cp.abort()
	}
}

// writerLocked returns c's copy writer, starting it on first use.
func (p *Publisher) writerLocked(c *transport.Conn) *copyWriter {
	w := p.writers[c]
	if w == nil {
		w = newCopyWriter(p.l.rt, c, p.queue, p.budget, p.drops.count)
		p.writers[c] = w
	}
	return w
}

// subscriberGone stops the writer of a connection that ended.
func (p *Publisher) subscriberGone(c *transport.Conn) {
	p.mu.Lock()
	w := p.writers[c]
	delete(p.writers, c)
	p.mu.Unlock()
	if w != nil {
		w.close()
	}
}

// copyEnded forgets a streamed copy whose goroutine returned.
func (p *Publisher) copyEnded(cp *fanoutCopy) {
	p.mu.Lock()
	delete(p.copies, cp)
	p.mu.Unlock()
}

// header is the DATA header of every copy: the publisher's path, the topic
// and meta, each checked against its wire cap, since a header a subscriber
// cannot decode would close its connection.
func (p *Publisher) header(topic string, meta TransferMeta) (wire.Data, error) {
	// A fan-out copy has no one to read a report back: refuse an order
	// rather than drop it silently.
	if err := refuseReportOrder(meta); err != nil {
		return wire.Data{}, err
	}
	for _, f := range []struct {
		name, value string
		limit       int
	}{
		{"topic", topic, wire.CapTopic},
		{"content type", meta.ContentType, wire.CapContentType},
		{"traceparent", meta.Traceparent, wire.CapTraceparent},
		{"tracestate", meta.Tracestate, wire.CapTracestate},
	} {
		if len(f.value) > f.limit {
			return wire.Data{}, errs.New(errs.KindProtocol, "the %s is %d bytes; the wire allows at most %d", f.name, len(f.value), f.limit)
		}
	}
	h := meta.header(p.path)
	h.Topic = wire.Some(topic)
	return h, nil
}

func errPublisherClosed() error { return errs.New(errs.KindCanceled, "the publisher was closed") }

// publisherRoute is a publisher's registration: it takes nothing inbound,
// so the dispatcher refuses every transfer and exchange Unsupported.
type publisherRoute struct{ p *Publisher }

func (publisherRoute) acceptsData() bool                  { return false }
func (publisherRoute) acceptsExchange() bool              { return false }
func (publisherRoute) enqueue(inbound) bool               { return false }
func (r publisherRoute) close()                           { r.p.shut() }
func (r publisherRoute) subscriberGone(c *transport.Conn) { r.p.subscriberGone(c) }

// pubsubMaxDropTopics bounds the per-topic drop table
// (PROTOCOL.md §13 max_sequence_scopes).
const pubsubMaxDropTopics = 1024

// DropCounts is one topic's dropped copies by cause. Total also counts
// copies lost at the wire (a subscriber's connection ended or refused the
// copy), which have no cause field of their own.
type DropCounts struct {
	Total              uint64
	SubscriberBudget   uint64 // did not fit the subscriber's byte budget, or a streamed copy ran out of room
	SubscriberQueue    uint64 // the subscriber's queue of copies was full
	NoParkedConnection uint64 // no parked reverse connection (socket transports only)
}

// pubsubDrops counts a publisher's drops, per topic for the first
// pubsubMaxDropTopics topics that drop and in aggregate for all.
type pubsubDrops struct {
	mu      sync.Mutex
	total   uint64
	byTopic map[string]DropCounts
}

func (d *pubsubDrops) count(topic string, cause DropCause) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total++
	c, tracked := d.byTopic[topic]
	if !tracked && len(d.byTopic) >= pubsubMaxDropTopics {
		return
	}
	c.Total++
	switch cause {
	case DropSubscriberBudget:
		c.SubscriberBudget++
	case DropSubscriberQueue:
		c.SubscriberQueue++
	case DropNoParked:
		c.NoParkedConnection++
	}
	if d.byTopic == nil {
		d.byTopic = make(map[string]DropCounts)
	}
	d.byTopic[topic] = c
}

func (d *pubsubDrops) totalCount() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.total
}

func (d *pubsubDrops) on(topic string) (DropCounts, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.byTopic[topic]
	return c, ok
}
