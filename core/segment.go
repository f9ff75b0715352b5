package weida

import (
	"bytes"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// MaxSegmentLayers is the number of layers a stream segment may have
// (0..15); layer k may depend only on layers below k.
const MaxSegmentLayers = wire.MaxLayer + 1

// segmentLayerQueue bounds the chunks queued per copy and layer.
const segmentLayerQueue = 64

// supersessionSlack is the fixed part of a finished copy's grace against
// its successor (decision 0037): rtt + 50 ms + rtt × bytes_written / cwnd.
const supersessionSlack = 50 * time.Millisecond

// SegmentOptions are a segment's terms.
type SegmentOptions struct {
	// MaxAge, when set, expires every copy this long after the segment
	// opened (measured on this side's clock); a dish's own max_age also
	// applies and the smaller wins.
	MaxAge time.Duration
	// Priority orders this segment's streams among others of the same
	// layer. quic-go schedules streams round-robin, so it is recorded for
	// the wire-compatible priority (15 − layer)·65536 + Priority but has no
	// effect in this build.
	Priority int16
	// FollowsUpstream keeps this segment's copies alive when a successor
	// opens on the topic, unless a successor's write must wait for room at
	// a dish: then that dish's copy of this one is reset first.
	FollowsUpstream bool
}

// Segment is one segment being written to the dishes that matched its
// topic when it opened (the dish set is fixed then). Write chunks with
// Write (layer 0) or WriteLayer, then Finish. Nothing waits for a dish:
// each write returns how many copies took the chunk. A Segment is used by
// one goroutine.
type Segment struct {
	r      *Radio
	topic  string
	number uint64
	opts   SegmentOptions
	copies []*segmentCopy

	// guarded by r.mu
	finishedLayers uint16
	finished       bool
}

// Segment opens the next segment on topic. Its number is one above the
// previous one on the topic (from 0), and opening it supersedes the older
// copies still in flight there (see SEMANTICS.md §2.7): a copy still being
// written is reset at once, a finished one after a short grace if the dish
// has not acknowledged it by then.
func (r *Radio) Segment(topic string, opts SegmentOptions) (*Segment, error) {
	if err := checkTopic(topic); err != nil {
		return nil, err
	}
	if opts.MaxAge < 0 {
		return nil, errs.New(errs.KindRuntime, "segment: MaxAge must not be negative")
	}
	targets := r.l.dishTargets(r.path, topic)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errRadioClosed()
	}
	tp := r.topicLocked(topic)
	s := &Segment{r: r, topic: topic, number: tp.next, opts: opts}
	tp.next++
	r.supersedeLocked(tp)
	for _, t := range targets {
		cp := &segmentCopy{seg: s, link: r.linkLocked(t.c), ceiling: t.maxLayer}
		if age := smallerAge(opts.MaxAge, t.maxAge); age > 0 {
			cp.expiry = time.AfterFunc(age, cp.expire)
		}
		s.copies = append(s.copies, cp)
	}
	tp.live = append(tp.live, s)
	return s, nil
}

// Number is the segment's number on its topic.
func (s *Segment) Number() uint64 { return s.number }

// Topic is the segment's topic.
func (s *Segment) Topic() string { return s.topic }

// Write writes chunk to layer 0; see WriteLayer.
func (s *Segment) Write(chunk []byte) (int, error) { return s.WriteLayer(0, chunk) }

// WriteLayer gives chunk to every copy with room for it and returns how
// many took it. A copy without room first gives up its layers above this
// one, then this layer and above; losing layer 0 loses the whole segment
// for that dish. A layer above a dish's max_layer is never sent to it.
// The chunk is copied, so the caller may reuse it.
func (s *Segment) WriteLayer(layer int, chunk []byte) (int, error) {
	if err := checkLayer(layer); err != nil {
		return 0, err
	}
	if int64(len(chunk)) > s.r.budget {
		return 0, errs.New(errs.KindLimitExceeded, "segment: a chunk of %d bytes exceeds the dish budget of %d bytes", len(chunk), s.r.budget)
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if err := s.writableLocked(layer); err != nil {
		return 0, err
	}
	var shared []byte
	reached := 0
	for _, cp := range s.copies {
		if cp.lost || layer > cp.ceiling {
			continue
		}
		if shared == nil {
			shared = bytes.Clone(chunk)
		}
		if cp.writeLocked(layer, shared) {
			reached++
		}
	}
	return reached, nil
}

// FinishLayer ends one layer on every copy (FIN once its queue is written).
func (s *Segment) FinishLayer(layer int) error {
	if err := checkLayer(layer); err != nil {
		return err
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if err := s.writableLocked(layer); err != nil {
		return err
	}
	s.finishLayerLocked(layer)
	return nil
}

// Finish ends every layer and returns how many copies are still alive.
// A dish that got no chunk still gets the (empty) segment.
func (s *Segment) Finish() (int, error) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if s.finished {
		return 0, errs.New(errs.KindNoReply, "segment: already finished")
	}
	s.finished = true
	alive := 0
	for _, cp := range s.copies {
		if !cp.lost && cp.layers[0] == nil {
			cp.layerLocked(0) // an empty segment is still a segment
		}
	}
	for layer := range MaxSegmentLayers {
		s.finishLayerLocked(layer)
	}
	for _, cp := range s.copies {
		if !cp.lost {
			alive++
		}
	}
	return alive, nil
}

func (s *Segment) finishLayerLocked(layer int) {
	s.finishedLayers |= 1 << layer
	for _, cp := range s.copies {
		if lc := cp.layers[layer]; lc != nil && !lc.finishing {
			lc.finishing = true
			lc.signal()
		}
	}
}

func (s *Segment) writableLocked(layer int) error {
	switch {
	case s.r.closed:
		return errRadioClosed()
	case s.finished:
		return errs.New(errs.KindNoReply, "segment: already finished")
	case s.finishedLayers&(1<<layer) != 0:
		return errs.New(errs.KindNoReply, "segment: layer %d was already finished", layer)
	}
	return nil
}

func checkLayer(layer int) error {
	if layer < 0 || layer > wire.MaxLayer {
		return errs.New(errs.KindLimitExceeded, "segment: layer %d is outside 0..%d", layer, wire.MaxLayer)
	}
	return nil
}

// supersedeLocked applies a new segment on tp to the older ones: each copy
// still being written is reset, each finished one gets its grace. A
// segment that follows upstream is kept until a successor needs its room.
func (r *Radio) supersedeLocked(tp *radioTopic) {
	kept := tp.live[:0]
	for _, old := range tp.live {
		if old.opts.FollowsUpstream && !old.settledLocked() {
			kept = append(kept, old)
			continue
		}
		for _, cp := range old.copies {
			cp.supersedeLocked()
		}
	}
	clear(tp.live[len(kept):])
	tp.live = kept
}

// cutFollowedLocked resets link's copies of the segments on s's topic that
// were kept alive by FollowsUpstream: s must write and has no room.
func (r *Radio) cutFollowedLocked(s *Segment, link *dishLink) {
	tp := r.topics[s.topic]
	for _, old := range tp.live {
		if old == s || !old.opts.FollowsUpstream {
			continue
		}
		for _, cp := range old.copies {
			if cp.link == link && !cp.lost && !cp.settledLocked() {
				cp.cutFromLocked(0, dropSuperseded)
			}
		}
	}
}

// settledLocked reports whether every copy was acknowledged or lost.
func (s *Segment) settledLocked() bool {
	for _, cp := range s.copies {
		if !cp.settledLocked() {
			return false
		}
	}
	return true
}

// smallerAge is the smaller of two optional ages (0 = none).
func smallerAge(a, b time.Duration) time.Duration {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// Segment is the segment number of a radio's copy (DATA key 13).
func (m IncomingMeta) Segment() (uint64, bool) { return m.hdr().Segment.V, m.hdr().Segment.Ok }

// Layer is the segment layer of a radio's copy (DATA key 14; 0 when absent).
func (m IncomingMeta) Layer() (int, bool) { return int(m.hdr().Layer), m.hdr().Segment.Ok }
