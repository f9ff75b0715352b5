package transport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// Datagram bounds of PROTOCOL.md §13. Only the receive budget is
// configurable (Config.DatagramReceiveBytes); the others are the spec's
// defaults.
const (
	// DefaultDatagramReceiveBytes is the documented "on" value of
	// datagram_receive_bytes: unread datagram bytes one connection holds.
	DefaultDatagramReceiveBytes = 64 << 10
	// MaxFlows bounds the live inbound flows of a connection.
	MaxFlows = 64
	// datagramSendBytes bounds datagrams queued for sending per connection;
	// beyond it the oldest are discarded (the sender never waits).
	datagramSendBytes = 64 << 10
	// flowQueueBytes bounds the unread datagrams of one inbound flow.
	flowQueueBytes = 16 << 10
	// flowEarlyBytes and flowEarlyHold bound datagrams that overtook their
	// FLOW header: one ring per connection, each held at most this long.
	flowEarlyBytes = 4 << 10
	flowEarlyHold  = time.Second
	// datagramEntryCost is charged per queued datagram on top of its bytes,
	// so a flood of empty datagrams is bounded too.
	datagramEntryCost = 32
)

// sizeProbe is larger than any QUIC datagram can be (quic-go caps one at a
// packet), so offering it to SendDatagram never queues anything and only
// reports the connection's current maximum. It is never written to.
var sizeProbe = make([]byte, 1<<16+1)

// connDatagrams holds each connection's datagram state, made on first use
// and dropped when the connection ends. It lives beside Conn rather than in
// it so flows stay out of the connection's core.
var connDatagrams sync.Map // *Conn → *datagrams

// datagrams is one connection's datagram plumbing (PROTOCOL.md §8.8): the
// outgoing ring a single sender goroutine drains into quic-go, the inbound
// flows by id, and the early ring for datagrams of flows not yet known.
type datagrams struct {
	c *Conn

	mu        sync.Mutex
	nextID    uint64        // outbound flow ids, a counter per connection
	sendQ     []outDatagram // oldest first
	sendBytes int           // bytes in sendQ, entry cost included
	wake      chan struct{} // capacity 1: the sender has work
	sending   bool          // the sender goroutine runs
	flows     map[uint64]*InFlow
	early     []earlyDatagram // oldest first
	earlyCost int
	held      int  // unread bytes over every inbound flow, entry cost included
	reading   bool // the reader goroutine runs

	// maxPayload caches MaxDatagramPayload: probed again when a payload
	// exceeds it (the path MTU may have grown) and lowered when quic-go
	// refuses a datagram (it shrank).
	maxPayload atomic.Int64
}

type outDatagram struct {
	flow *OutFlow
	b    []byte
}

type earlyDatagram struct {
	flow    uint64
	payload []byte
	at      time.Time
}

// datagrams returns c's datagram state, creating it on first use.
func (c *Conn) datagrams() *datagrams {
	if d, ok := connDatagrams.Load(c); ok {
		return d.(*datagrams)
	}
	d, loaded := connDatagrams.LoadOrStore(c, &datagrams{c: c, wake: make(chan struct{}, 1), flows: make(map[uint64]*InFlow)})
	if !loaded {
		context.AfterFunc(endedContext{c.done}, func() { connDatagrams.Delete(c) })
	}
	return d.(*datagrams)
}

// DatagramsAgreed reports whether both sides listed the datagram capability
// in HELLO, so flows may be opened on the connection. On a local transport
// the FLOW stream carries the datagrams itself (local_flow.go).
func (c *Conn) DatagramsAgreed() bool { return c.agreed.Datagrams }

// MaxDatagramPayload is the largest datagram (flow id included) the
// connection can send now; 0 when it cannot send datagrams at all. It
// follows the path MTU, so it may grow during the connection. On a local
// transport it is LocalMaxDatagram once datagrams were agreed.
func (c *Conn) MaxDatagramPayload() int {
	if c.local != nil {
		if c.DatagramsAgreed() {
			return LocalMaxDatagram
		}
		return 0
	}
	var tooLarge *quic.DatagramTooLargeError
	if err := c.qc.SendDatagram(sizeProbe); errors.As(err, &tooLarge) {
		return int(tooLarge.MaxDatagramPayloadSize)
	}
	return 0
}

// DatagramTooLarge is the detail of a TooLarge error: the largest payload
// the flow could have sent at that moment.
type DatagramTooLarge struct{ Max int }

// Error implements error.
func (e *DatagramTooLarge) Error() string {
	return "the datagram exceeds the connection's maximum datagram payload"
}

// send queues one datagram of flow f. It never waits: a payload that does
// not fit the connection's datagram size fails with TooLarge, and beyond
// datagramSendBytes queued the oldest datagrams are discarded and counted
// on their flows.
func (d *datagrams) send(f *OutFlow, payload []byte) error {
	if f.local {
		return d.sendLocal(f, payload)
	}
	idLen := wire.VarintLen(f.id)
	if int64(idLen+len(payload)) > d.maxPayload.Load() {
		d.maxPayload.Store(int64(d.c.MaxDatagramPayload()))
		if limit := max(int(d.maxPayload.Load())-idLen, 0); len(payload) > limit {
			return &errs.Error{Kind: errs.KindTooLarge, Err: &DatagramTooLarge{Max: limit},
				Msg: fmt.Sprintf("a datagram of %d bytes exceeds the connection's current maximum of %d", len(payload), limit)}
		}
	}
	d.enqueue(f, wire.AppendDatagram(make([]byte, 0, idLen+len(payload)), f.id, payload))
	return nil
}

// sendLocal queues one datagram of a local flow as a record of its stream.
func (d *datagrams) sendLocal(f *OutFlow, payload []byte) error {
	if len(payload) > LocalMaxDatagram {
		return &errs.Error{Kind: errs.KindTooLarge, Err: &DatagramTooLarge{Max: LocalMaxDatagram},
			Msg: fmt.Sprintf("a datagram of %d bytes exceeds LOCAL_MAX_DATAGRAM %d", len(payload), LocalMaxDatagram)}
	}
	d.enqueue(f, appendLocalRecord(make([]byte, 0, wire.VarintLen(uint64(len(payload)))+len(payload)), payload))
	return nil
}

// enqueue adds b to the send ring, discarding the oldest beyond
// datagramSendBytes, and wakes the sender.
func (d *datagrams) enqueue(f *OutFlow, b []byte) {
	d.mu.Lock()
	d.sendQ = append(d.sendQ, outDatagram{flow: f, b: b})
	d.sendBytes += len(b) + datagramEntryCost
	for d.sendBytes > datagramSendBytes {
		d.dropOldestLocked()
	}
	d.wakeSenderLocked()
	f.sent.Add(1)
}

// dropOldestLocked discards the oldest queued datagram. A local flow's
// FIN (an entry without bytes, costing nothing) is never discarded: it
// stays in order behind the records before it.
func (d *datagrams) dropOldestLocked() {
	i := 0
	for d.sendQ[i].b == nil {
		i++
	}
	old := d.sendQ[i]
	if i == 0 {
		d.sendQ[0] = outDatagram{}
		d.sendQ = d.sendQ[1:]
	} else { // behind a FIN: rare
		copy(d.sendQ[i:], d.sendQ[i+1:])
		d.sendQ[len(d.sendQ)-1] = outDatagram{}
		d.sendQ = d.sendQ[:len(d.sendQ)-1]
	}
	d.sendBytes -= len(old.b) + datagramEntryCost
	old.flow.dropped.Add(1)
}

// wakeSenderLocked starts the sender goroutine once and tells it there is
// work; it unlocks d.mu.
func (d *datagrams) wakeSenderLocked() {
	start := !d.sending
	d.sending = true
	d.mu.Unlock()
	if start {
		go d.sender()
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// sender hands queued datagrams to quic-go, whose own queue is short and
// blocks when full: the blocking happens here, never in a caller. It ends
// with the connection.
func (d *datagrams) sender() {
	for {
		d.mu.Lock()
		if len(d.sendQ) == 0 {
			d.mu.Unlock()
			select {
			case <-d.wake:
				continue
			case <-d.c.Done():
				return
			}
		}
		next := d.sendQ[0]
		d.sendQ[0] = outDatagram{}
		d.sendQ = d.sendQ[1:]
		if next.b != nil {
			d.sendBytes -= len(next.b) + datagramEntryCost
		}
		d.mu.Unlock()
		if next.b == nil { // a local flow's FIN, after its records
			_ = next.flow.s.Close()
			continue
		}
		if next.flow.local {
			if err := next.flow.writeLocal(next.b); err != nil {
				next.flow.dropped.Add(1) // the flow or the connection ended
			}
			continue
		}
		if err := d.c.qc.SendDatagram(next.b); err != nil {
			next.flow.dropped.Add(1) // the path MTU shrank, or the connection ended
			var tooLarge *quic.DatagramTooLargeError
			if errors.As(err, &tooLarge) {
				d.maxPayload.Store(tooLarge.MaxDatagramPayloadSize)
			} else if d.c.Err() != nil {
				return
			}
		}
	}
}

// startReader starts the connection's datagram reader once. It is called
// from a stream goroutine the connection tracks, so the connection's close
// waits for the reader too. Until it runs, quic-go holds arrivals in its
// own short queue.
func (d *datagrams) startReader() {
	d.mu.Lock()
	start := !d.reading
	d.reading = true
	d.mu.Unlock()
	if start {
		d.c.wg.Add(1)
		go d.read()
	}
}

func (d *datagrams) read() {
	defer d.c.wg.Done()
	for {
		b, err := d.c.qc.ReceiveDatagram(context.Background())
		if err != nil {
			return
		}
		id, payload, err := wire.ParseDatagram(b)
		if err != nil {
			continue // truncated flow id: dropped, never a violation (§8.8)
		}
		d.deliver(id, payload, time.Now())
	}
}

// deliver files one arrival under its flow, or in the early ring when no
// live flow has the id yet.
func (d *datagrams) deliver(id uint64, payload []byte, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f := d.flows[id]; f != nil {
		d.pushLocked(f, payload)
		return
	}
	d.early = append(d.early, earlyDatagram{flow: id, payload: payload, at: now})
	d.earlyCost += len(payload) + datagramEntryCost
	d.pruneEarlyLocked(now)
}

// pruneEarlyLocked drops early datagrams past their hold or beyond the
// ring's bytes, oldest first.
func (d *datagrams) pruneEarlyLocked(now time.Time) {
	for len(d.early) > 0 && (d.earlyCost > flowEarlyBytes || now.Sub(d.early[0].at) > flowEarlyHold) {
		d.earlyCost -= len(d.early[0].payload) + datagramEntryCost
		d.early[0] = earlyDatagram{}
		d.early = d.early[1:]
	}
}

// pushLocked queues payload on f, dropping f's oldest datagrams while f is
// over flowQueueBytes or the connection over its receive budget.
func (d *datagrams) pushLocked(f *InFlow, payload []byte) {
	cost := len(payload) + datagramEntryCost
	budget := d.c.cfg.DatagramReceiveBytes
	for len(f.queue) > 0 && (f.queued+cost > flowQueueBytes || d.held+cost > budget) {
		d.popLocked(f)
		f.dropped++
	}
	if f.queued+cost > flowQueueBytes || d.held+cost > budget {
		f.dropped++ // larger than a whole ring: nothing older to give up
		return
	}
	f.queue = append(f.queue, payload)
	f.queued += cost
	d.held += cost
	f.received++
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// popLocked removes f's oldest datagram.
func (d *datagrams) popLocked(f *InFlow) []byte {
	b := f.queue[0]
	f.queue[0] = nil
	f.queue = f.queue[1:]
	cost := len(b) + datagramEntryCost
	f.queued -= cost
	d.held -= cost
	return b
}

// register records an inbound flow under its id and adopts the early
// datagrams that carry it, in arrival order. A second live flow with the
// same id is a violation (PROTOCOL.md §8.7 rule 2); beyond MaxFlows the
// flow is refused and not recorded (ok false).
func (d *datagrams) register(f *InFlow) (ok bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, live := d.flows[f.id]; live {
		return false, &wire.ViolationError{Reason: fmt.Sprintf("a second FLOW names live flow id %d", f.id)}
	}
	if len(d.flows) >= MaxFlows {
		return false, nil
	}
	d.flows[f.id] = f
	d.pruneEarlyLocked(time.Now())
	kept := d.early[:0]
	for _, e := range d.early {
		if e.flow == f.id {
			d.earlyCost -= len(e.payload) + datagramEntryCost
			d.pushLocked(f, e.payload)
			continue
		}
		kept = append(kept, e)
	}
	clear(d.early[len(kept):])
	d.early = kept
	return true, nil
}

// unregister forgets f: later datagrams with its id are early again.
// Datagrams f still holds stay readable (and charged) until read or
// discarded.
func (d *datagrams) unregister(f *InFlow) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.flows[f.id] == f {
		delete(d.flows, f.id)
	}
}

// discardLocked drops every datagram f still holds (the application let
// the flow go).
func (d *datagrams) discardLocked(f *InFlow) {
	for len(f.queue) > 0 {
		d.popLocked(f)
	}
	f.queue = nil
}

// allocID returns the next outbound flow id of the connection.
func (d *datagrams) allocID() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := d.nextID
	d.nextID++
	return id
}
