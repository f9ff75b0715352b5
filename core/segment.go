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
	// Priority nudges this segment's streams against others of the same
	// layers: positive is more urgent, negative less. A lower layer is
	// never less urgent than a higher one, and without a negative Priority
	// every layer is at least as urgent as ordinary streams (see
	// layerCopy.urgency for the mapping onto QUIC stream urgency).
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
	hub    *segmentHub
	scope  topicScope
	path   string // the DATA endpoint of every copy
	number uint64
	opts   SegmentOptions
	copies []*segmentCopy

	// guarded by hub.mu
	finishedLayers uint16
	finished       bool
}

// Segment opens the next segment on topic. Its number is one above the
// previous one on the topic (from 0), and opening it supersedes the older
// copies still in flight there (see SEMANTICS.md §2.7): a copy still being
// written is reset at once, a finished one after a short grace if the dish
// has not acknowledged it by then.
func (r *Radio) Segment(topic string, opts SegmentOptions) (*Segment, error) {
	if err := checkSegmentTerms(topic, opts); err != nil {
		return nil, err
	}
	return r.open(topicScope{topic: topic}, r.path, r.l.dishTargets(r.path, topic), opts)
}

// Number is the segment's number on its topic.
func (s *Segment) Number() uint64 { return s.number }

// Topic is the segment's topic.
func (s *Segment) Topic() string { return s.scope.topic }

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
	if int64(len(chunk)) > s.hub.budget {
		return 0, errs.New(errs.KindLimitExceeded, "segment: a chunk of %d bytes exceeds the dish budget of %d bytes", len(chunk), s.hub.budget)
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
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

// Alive is the number of copies not lost yet (superseded, expired, cut
// at layer 0, or refused by their dish).
func (s *Segment) Alive() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.aliveLocked()
}

func (s *Segment) aliveLocked() int {
	alive := 0
	for _, cp := range s.copies {
		if !cp.lost {
			alive++
		}
	}
	return alive
}

// FinishLayer ends one layer on every copy (FIN once its queue is written).
func (s *Segment) FinishLayer(layer int) error {
	if err := checkLayer(layer); err != nil {
		return err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if err := s.writableLocked(layer); err != nil {
		return err
	}
	s.finishLayerLocked(layer)
	return nil
}

// Finish ends every layer and returns how many copies are still alive.
// A dish that got no chunk still gets the (empty) segment.
func (s *Segment) Finish() (int, error) {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if s.finished {
		return 0, errs.New(errs.KindNoReply, "segment: already finished")
	}
	s.finished = true
	for _, cp := range s.copies {
		if !cp.lost && cp.layers[0] == nil {
			cp.layerLocked(0) // an empty segment is still a segment
		}
	}
	for layer := range MaxSegmentLayers {
		s.finishLayerLocked(layer)
	}
	return s.aliveLocked(), nil
}

// Cancel abandons an unfinished segment: every copy still alive is reset
// CANCELED, so no dish waits for the rest of it and none mistakes the cut
// segment for a whole one. It is not counted as a drop: the application
// chose it. A finished segment is left alone; Cancel is idempotent, and
// later writes fail like writes after Finish.
func (s *Segment) Cancel() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if s.finished {
		return
	}
	s.finished = true
	for _, cp := range s.copies {
		if !cp.lost {
			cp.abandonLocked()
		}
	}
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
	case s.hub.closed:
		return errSegmentsClosed()
	case s.finished:
		return errs.New(errs.KindNoReply, "segment: already finished")
	case s.finishedLayers&(1<<layer) != 0:
		return errs.New(errs.KindNoReply, "segment: layer %d was already finished", layer)
	}
	return nil
}

// checkSegmentTerms refuses what no segment may carry.
func checkSegmentTerms(topic string, opts SegmentOptions) error {
	if err := checkTopic(topic); err != nil {
		return err
	}
	if opts.MaxAge < 0 {
		return errs.New(errs.KindRuntime, "segment: MaxAge must not be negative")
	}
	return nil
}

func checkLayer(layer int) error {
	if layer < 0 || layer > wire.MaxLayer {
		return errs.New(errs.KindLimitExceeded, "segment: layer %d is outside 0..%d", layer, wire.MaxLayer)
	}
	return nil
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
