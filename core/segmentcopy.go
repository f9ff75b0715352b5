package weida

import (
	"context"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// segmentCopy is one dish's copy of a segment: up to 16 layer streams,
// each opened on its layer's first chunk. Everything in it is guarded by
// the radio's mutex.
type segmentCopy struct {
	seg       *Segment
	link      *dishLink
	ceiling   int  // highest layer still sent: the dish's cap, lowered by cuts
	lost      bool // layer 0 was cut: the dish gets nothing of the segment
	layersCut bool // counted once per copy
	layers    [MaxSegmentLayers]*layerCopy
	expiry    *time.Timer
}

// layerCopy is one (copy, layer): a uni DATA stream with its own queue of
// at most segmentLayerQueue chunks, written by its own goroutine so no
// write of the radio ever waits for the dish.
type layerCopy struct {
	cp     *segmentCopy
	layer  int
	ctx    context.Context // ends when the layer is cut: stops the open and the wait
	cancel context.CancelFunc
	wake   chan struct{} // capacity 1: a chunk or the finish arrived

	// guarded by the radio's mutex
	chunks    [][]byte
	queued    int64 // bytes in chunks (the chunk being written is charged to the link only)
	written   int64 // bytes QUIC took
	finishing bool  // FinishLayer: FIN once the queue is written
	done      bool  // the writer ended (FIN sent, or the stream failed)
	cut       bool  // reset by the radio
	out       *transport.OutStream
	receipt   *transport.Receipt // set once the FIN was queued
	grace     *time.Timer
}

// writeLocked queues chunk on layer k of the copy, making room by the cut
// rule when there is none; false means the copy lost the layer (or all).
func (cp *segmentCopy) writeLocked(k int, chunk []byte) bool {
	h := cp.seg.hub
	if !cp.roomLocked(k, len(chunk)) {
		h.cutFollowedLocked(cp.seg, cp.link)
	}
	if !cp.roomLocked(k, len(chunk)) && cp.hasLayersAboveLocked(k) {
		cp.cutFromLocked(k+1, dropLayersCut)
	}
	if !cp.roomLocked(k, len(chunk)) {
		cause := dropQueue
		if cp.link.queued+int64(len(chunk)) > h.budget {
			cause = dropBudget
		}
		cp.cutFromLocked(k, cause)
		return false
	}
	lc := cp.layerLocked(k)
	if lc.cut { // lost as it opened (no reverse connection parked)
		return false
	}
	lc.chunks = append(lc.chunks, chunk)
	lc.queued += int64(len(chunk))
	cp.link.queued += int64(len(chunk))
	lc.signal()
	return true
}

func (cp *segmentCopy) roomLocked(k, n int) bool {
	if cp.link.queued+int64(n) > cp.seg.hub.budget {
		return false
	}
	lc := cp.layers[k]
	return lc == nil || len(lc.chunks) < segmentLayerQueue
}

func (cp *segmentCopy) hasLayersAboveLocked(k int) bool {
	for j := k + 1; j < MaxSegmentLayers; j++ {
		if lc := cp.layers[j]; lc != nil && !lc.cut {
			return true
		}
	}
	return false
}

// layerLocked returns layer k's stream, starting its writer on first use.
func (cp *segmentCopy) layerLocked(k int) *layerCopy {
	if lc := cp.layers[k]; lc != nil {
		return lc
	}
	lc := &layerCopy{cp: cp, layer: k, wake: make(chan struct{}, 1)}
	lc.ctx, lc.cancel = context.WithCancel(context.Background())
	cp.layers[k] = lc
	s := cp.seg
	hdr := wire.Data{Endpoint: wire.Some(s.path), Topic: wire.Some(s.scope.topic),
		Segment: wire.Some(s.number), Layer: uint64(k)}
	// Opened here when the dish's stream credit allows, so a dish's streams
	// are numbered in the order their segments opened; else the writer
	// waits for credit.
	out, err := cp.link.c.OpenUniNow(&hdr)
	switch {
	case err == nil:
		out.SetUrgency(lc.urgency())
		lc.out = out
	case errs.KindOf(err) == errs.KindNoParkedConnection:
		// A unix dish with no reverse connection parked: a publisher
		// drops that copy (or layer) and counts it (PROTOCOL.md §12).
		lc.done = true
		cp.cutFromLocked(k, dropNoParked)
		return lc
	}
	go lc.run(hdr)
	return lc
}

// cutFromLocked resets layers k and above (CANCELED, even when finished)
// and never sends them again. Cutting layer 0 loses the copy, counted
// under cause; cutting only upper layers counts LayersCut once per copy.
func (cp *segmentCopy) cutFromLocked(k int, cause dishDropCause) {
	for j := k; j < MaxSegmentLayers; j++ {
		if lc := cp.layers[j]; lc != nil {
			lc.resetLocked()
		}
	}
	cp.ceiling = min(cp.ceiling, k-1)
	h := cp.seg.hub
	switch {
	case k == 0 && !cp.lost:
		cp.lost = true
		cp.stopExpiry()
		h.dropLocked(cp.link, cause)
	case k > 0 && !cp.layersCut:
		cp.layersCut = true
		h.dropLocked(cp.link, dropLayersCut)
	}
}

// abandonLocked resets every layer without counting a loss: the dish or
// the radio is gone.
func (cp *segmentCopy) abandonLocked() {
	for _, lc := range cp.layers {
		if lc != nil {
			lc.resetLocked()
		}
	}
	cp.ceiling, cp.lost = -1, true
	cp.stopExpiry()
}

// supersedeLocked applies a successor's opening: the lowest layer the
// application is still writing is cut with everything above it; a layer
// it finished but the dish has not acknowledged gets its grace. A finished
// layer whose bytes are blocked by the dish's flow control is not told
// apart at once: its grace runs out unacknowledged and it is reset then.
func (cp *segmentCopy) supersedeLocked() {
	if cp.lost {
		return
	}
	for _, lc := range cp.layers {
		switch {
		case lc == nil || lc.cut || lc.ackedLocked():
		case !lc.finishing:
			cp.cutFromLocked(lc.layer, dropSuperseded)
			return
		default:
			lc.startGraceLocked()
		}
	}
}

// expire resets what the dish has not acknowledged when max_age passed.
func (cp *segmentCopy) expire() {
	h := cp.seg.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if cp.lost {
		return
	}
	for _, lc := range cp.layers {
		if lc != nil && !lc.cut && !lc.ackedLocked() {
			cp.cutFromLocked(lc.layer, dropExpired)
			return
		}
	}
}

func (cp *segmentCopy) stopExpiry() {
	if cp.expiry != nil {
		cp.expiry.Stop()
	}
}

// settledLocked reports whether the copy needs nothing more: lost, or
// every layer it opened acknowledged.
func (cp *segmentCopy) settledLocked() bool {
	if cp.lost {
		return true
	}
	for _, lc := range cp.layers {
		if lc != nil && !lc.cut && !lc.ackedLocked() {
			return false
		}
	}
	return true
}

// run opens the layer's stream unless it already is, and writes its chunks
// as they come, then the FIN. The chunk being written stays charged to the
// dish's budget until QUIC took it.
func (lc *layerCopy) run(hdr wire.Data) {
	h := lc.cp.seg.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	out := lc.out
	if out == nil {
		h.mu.Unlock()
		opened, err := lc.cp.link.c.OpenUni(lc.ctx, &hdr)
		h.mu.Lock()
		if err != nil || lc.cut {
			if opened != nil {
				opened.Cancel()
			}
			lc.endLocked(err != nil)
			return
		}
		opened.SetUrgency(lc.urgency())
		lc.out, out = opened, opened
	}
	failed := false
	for !lc.cut && !failed {
		if len(lc.chunks) == 0 {
			if lc.finishing {
				h.mu.Unlock()
				receipt, err := out.Finish()
				h.mu.Lock()
				lc.receipt, failed = receipt, err != nil
				break
			}
			h.mu.Unlock()
			select {
			case <-lc.wake:
			case <-lc.ctx.Done():
			case <-out.Stopped(): // refused by the dish, or its connection ended
				failed = true
			}
			h.mu.Lock()
			continue
		}
		chunk := lc.chunks[0]
		lc.chunks[0] = nil
		lc.chunks = lc.chunks[1:]
		lc.queued -= int64(len(chunk))
		h.mu.Unlock()
		n, err := out.Write(chunk)
		h.mu.Lock()
		lc.cp.link.queued -= int64(len(chunk))
		lc.written += int64(n)
		failed = err != nil // reset by the radio, refused by the dish, or its connection ended
	}
	lc.endLocked(failed)
}

// endLocked marks the writer ended. A layer whose stream failed under it
// (the dish refused or reset it, or its connection ended) is given up like
// a cut, so its queue stops charging the dish's budget, but no cause is
// counted: the sender cannot know one.
func (lc *layerCopy) endLocked(failed bool) {
	lc.done = true
	if !failed || lc.cut {
		return
	}
	cp := lc.cp
	for j := lc.layer; j < MaxSegmentLayers; j++ { // the layers above depend on it
		if above := cp.layers[j]; above != nil {
			above.resetLocked()
		}
	}
	cp.ceiling = min(cp.ceiling, lc.layer-1)
	if lc.layer == 0 && !cp.lost {
		cp.lost = true
		cp.stopExpiry()
	}
}

// resetLocked cuts the layer: its queued bytes go back to the dish's
// budget and its stream is reset CANCELED (a finished stream too, unless
// its receipt already resolved).
func (lc *layerCopy) resetLocked() {
	if lc.cut {
		return
	}
	lc.cut = true
	lc.cp.link.queued -= lc.queued
	clear(lc.chunks)
	lc.chunks, lc.queued = nil, 0
	lc.cancel()
	if lc.out != nil {
		lc.out.Cancel()
	}
	if lc.grace != nil {
		lc.grace.Stop()
	}
}

// startGraceLocked gives a finished, unacknowledged layer the time its
// bytes should need to be acknowledged before resetting it:
// rtt + 50 ms + rtt × bytes_written / cwnd.
func (lc *layerCopy) startGraceLocked() {
	if lc.grace != nil {
		return
	}
	rtt, cwnd, ok := lc.cp.link.c.PathEstimate()
	if !ok { // a local transport: no grace
		lc.cp.cutFromLocked(lc.layer, dropSuperseded)
		return
	}
	written := lc.written + lc.queued // finished: every byte written, taken by QUIC or not yet
	grace := rtt + supersessionSlack + time.Duration(float64(rtt)*float64(written)/float64(max(cwnd, 1)))
	h := lc.cp.seg.hub
	lc.grace = time.AfterFunc(grace, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if !lc.cut && !lc.ackedLocked() {
			lc.cp.cutFromLocked(lc.layer, dropSuperseded)
		}
	})
}

// ackedLocked reports whether the dish's QUIC stack acknowledged the
// whole layer, FIN included.
func (lc *layerCopy) ackedLocked() bool {
	if lc.receipt == nil {
		return false
	}
	select {
	case <-lc.receipt.Done():
		return lc.receipt.Err() == nil
	default:
		return false
	}
}

// urgency maps the segment priority (15 − layer)·65536 + Priority of
// decision 0037 onto quic-go's eight RFC 9218 urgencies: layers by fours
// from 0 (layer 0, most urgent) to 3 (where every other stream sits), one
// level more urgent for a positive Priority, one less for a negative one.
func (lc *layerCopy) urgency() int8 {
	u := int8(lc.layer / 4)
	switch p := lc.cp.seg.opts.Priority; {
	case p > 0:
		u--
	case p < 0:
		u++
	}
	return max(u, 0)
}

func (lc *layerCopy) signal() {
	select {
	case lc.wake <- struct{}{}:
	default:
	}
}
