package weida

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// DishMessageKind says what a Dish received.
type DishMessageKind int

// What a Dish receives.
const (
	DishSegment  DishMessageKind = iota + 1 // a stream segment (one layer of it)
	DishDatagram                            // a one-packet datagram segment
)

// DishMessage is one segment (or one layer of a layered segment) or one
// datagram segment.
type DishMessage struct {
	Kind    DishMessageKind
	Payload []byte
	Topic   string
	Segment uint64 // the segment number on its topic
	Layer   int    // 0 for datagram segments
	Meta    IncomingMeta
}

// dishRoute is a dish's receiving side on its dialled connections: the
// freshness check every arrival passes first, then one bounded queue that
// discards on arrival when full.
type dishRoute struct {
	items    chan dishItem
	ctx      context.Context // ends at close: stops the flow readers
	cancel   context.CancelFunc
	once     sync.Once
	readers  sync.WaitGroup
	stale    atomic.Uint64
	overflow atomic.Uint64

	mu    sync.Mutex // orders enqueueFlow against close
	fresh freshTable
}

// dishItem is a stream segment not yet read, or a datagram segment.
type dishItem struct {
	stream   *transport.InStream
	datagram *DishMessage
}

func newDishRoute(depth int) *dishRoute {
	r := &dishRoute{items: make(chan dishItem, depth)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

func (r *dishRoute) acceptsData() bool     { return true }
func (r *dishRoute) acceptsExchange() bool { return false }

// enqueue takes a stream segment: a stale one is refused CANCELED before
// any endpoint sees it, a fresh one is queued or, with the queue full,
// refused CANCELED and counted. It never blocks the connection.
func (r *dishRoute) enqueue(it inbound) bool {
	in := it.data
	if r.ctx.Err() != nil {
		return false
	}
	h := &in.Header
	if !h.Segment.Ok {
		in.Refuse(wire.CodeUnsupported) // a dish takes segments only
		return true
	}
	if !r.fresh.admit(in.Conn(), h.Topic.V, h.Segment.V, int(h.Layer)) {
		r.stale.Add(1)
		in.Refuse(wire.CodeCanceled)
		return true
	}
	select {
	case r.items <- dishItem{stream: in}:
		if r.ctx.Err() != nil {
			r.refuseQueued() // close may have emptied items before it landed
		}
	default:
		r.overflow.Add(1)
		in.Refuse(wire.CodeCanceled)
	}
	return true
}

// enqueueFlow implements flowRoute: a radio's datagram flow for one topic
// is read by its own goroutine until it ends or the dish closes.
func (r *dishRoute) enqueueFlow(f *transport.InFlow) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return false
	}
	r.readers.Add(1) // under mu, so never beside close's Wait
	go r.readFlow(f)
	return true
}

// readFlow turns each datagram ([segment varint][payload], PROTOCOL.md
// §8.8) into a datagram segment, checked for freshness at layer 0.
func (r *dishRoute) readFlow(f *transport.InFlow) {
	defer r.readers.Done()
	defer f.Release()
	topic := f.Header.Topic.V
	for {
		b, err := f.Recv(r.ctx)
		if err != nil {
			return
		}
		number, n, err := wire.ParseVarint(b)
		if err != nil {
			continue // no segment number: not a datagram segment, dropped
		}
		if !r.fresh.admit(f.Conn(), topic, number, 0) {
			r.stale.Add(1)
			continue
		}
		msg := &DishMessage{Kind: DishDatagram, Payload: b[n:], Topic: topic, Segment: number}
		select {
		case r.items <- dishItem{datagram: msg}:
		default:
			r.overflow.Add(1)
		}
	}
}

// next waits for the next queued item.
func (r *dishRoute) next(ctx context.Context) (dishItem, error) {
	select {
	case it := <-r.items:
		return it, nil
	case <-r.ctx.Done():
		return dishItem{}, errs.New(errs.KindCanceled, "the dish was closed")
	case <-ctx.Done():
		return dishItem{}, errs.Wrap(errs.KindCanceled, ctx.Err(), "receive abandoned")
	}
}

// close stops the flow readers and refuses what is still queued.
func (r *dishRoute) close() {
	r.once.Do(func() {
		r.mu.Lock()
		r.cancel()
		r.mu.Unlock()
		r.readers.Wait()
		r.refuseQueued()
	})
}

// refuseQueued refuses the stream segments waiting in items and drops the
// datagram segments.
func (r *dishRoute) refuseQueued() {
	for {
		select {
		case it := <-r.items:
			if it.stream != nil {
				it.stream.Refuse(wire.CodeCanceled)
			}
		default:
			return
		}
	}
}
