package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"sync"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

type publisherObj struct {
	scope
	p *weida.Publisher
}

func (*publisherObj) role() role { return rolePublisher }
func (p *publisherObj) release() { p.closeWith(func() { _ = p.p.Close() }) }

// fanoutObj is one streamed publication. The Go type's writes are for one
// goroutine, so they are serialized here. Closing it unfinished cancels
// every copy (FanOut.Cancel does nothing after Finish).
type fanoutObj struct {
	scope
	f  *weida.FanOut
	mu sync.Mutex // one write or finish at a time
}

func (*fanoutObj) role() role { return roleFanout }
func (f *fanoutObj) release() { f.closeWith(f.f.Cancel) }

//export weida_publisher_publish
func weida_publisher_publish(h C.weida_publisher_t, topic *C.char, data unsafe.Pointer, n C.size_t, reached *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	// Publish copies once for every subscriber and returns without waiting.
	return answer(uint64(h), reached, "reached", func(p *publisherObj) (uint64, error) {
		return sendOnTopic(topic, data, n, p.p.Publish)
	})
}

//export weida_publisher_open
func weida_publisher_open(h C.weida_publisher_t, topic *C.char, out *C.weida_fanout_t) (rc C.int) {
	defer recoverInto(&rc)
	var pub *publisherObj
	return register(out, parentOf(uint64(h), &pub), func(s scope) (object, error) {
		t, err := inText(topic, "topic")
		if err != nil {
			return nil, err
		}
		f, err := pub.p.Open(t)
		return &fanoutObj{scope: s, f: f}, err
	})
}

//export weida_publisher_subscriber_count
func weida_publisher_subscriber_count(h C.weida_publisher_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *publisherObj) uint64 { return uint64(p.p.SubscriberCount()) })
}

//export weida_publisher_filter_count
func weida_publisher_filter_count(h C.weida_publisher_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *publisherObj) uint64 { return uint64(p.p.FilterCount()) })
}

//export weida_publisher_dropped
func weida_publisher_dropped(h C.weida_publisher_t, count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *publisherObj) uint64 { return p.p.Dropped() })
}

//export weida_publisher_dropped_on
func weida_publisher_dropped_on(h C.weida_publisher_t, topic *C.char, counts *C.weida_drop_counts_t, found *C.int) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), found, "found", func(p *publisherObj) (uint64, error) {
		t, err := inText(topic, "topic")
		if err != nil {
			return 0, err
		}
		d, ok := p.p.DroppedOn(t)
		val := C.weida_drop_counts_t{total: C.uint64_t(d.Total), subscriber_budget: C.uint64_t(d.SubscriberBudget),
			subscriber_queue: C.uint64_t(d.SubscriberQueue), no_parked_connection: C.uint64_t(d.NoParkedConnection)}
		if err := writeSized(counts, val, "counts"); err != nil {
			return 0, err
		}
		if !ok {
			return 0, nil // none counted for the topic
		}
		return 1, nil
	})
}

//export weida_publisher_path
func weida_publisher_path(h C.weida_publisher_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(p *publisherObj) string { return p.p.Path() })
}

//export weida_fanout_topic
func weida_fanout_topic(h C.weida_fanout_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(f *fanoutObj) string { return f.f.Topic() })
}

func fanoutWriteWithin(h C.weida_fanout_t, data unsafe.Pointer, n C.size_t, secs C.double) prepared {
	return on(uint64(h), func(f *fanoutObj) prepared {
		chunk, err := inBytes(data, n, "data")
		if err != nil {
			return refused(err)
		}
		limit, err := seconds(secs, "seconds")
		if err != nil {
			return refused(err)
		}
		return f.prepare(func(ctx context.Context) (uint64, uint64, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			left, err := f.f.WriteWithin(ctx, chunk, limit)
			return uint64(left), 0, err
		})
	})
}

//export weida_fanout_write_within
func weida_fanout_write_within(h C.weida_fanout_t, data unsafe.Pointer, n C.size_t, secs C.double, left *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(fanoutWriteWithin(h, data, n, secs), left, "left")
}

//export weida_fanout_write_within_async
func weida_fanout_write_within_async(h C.weida_fanout_t, data unsafe.Pointer, n C.size_t, secs C.double, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(fanoutWriteWithin(h, data, n, secs), cb, user, op)
}

//export weida_fanout_write_now
func weida_fanout_write_now(h C.weida_fanout_t, data unsafe.Pointer, n C.size_t, left *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), left, "left", func(f *fanoutObj) (uint64, error) {
		chunk, err := inBytes(data, n, "data")
		if err != nil {
			return 0, err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		return counted(f.f.WriteNow(chunk))
	})
}

//export weida_fanout_subscribers
func weida_fanout_subscribers(h C.weida_fanout_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	// Not under f.mu: counting is safe beside a write, and must not wait
	// for one.
	return getCount(uint64(h), count, func(f *fanoutObj) uint64 { return uint64(f.f.Subscribers()) })
}

//export weida_fanout_finish
func weida_fanout_finish(h C.weida_fanout_t, complete *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), complete, "complete", func(f *fanoutObj) (uint64, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return counted(f.f.Finish())
	})
}
