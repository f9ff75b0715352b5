package transport

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go/qlog"

	"github.com/weida-go/weida/core/errs"
)

// Stream types as quic-go numbers them (uni 0, bidi 1).
const (
	streamUni  = 0
	streamBidi = 1
)

// creditTracker follows the stream credit the peer grants: its initial
// limits (its transport parameters) and every MAX_STREAMS frame. quic-go
// grants new credit only when its application has completed a stream (read
// it to the end, or stopped it), so once the credit granted beyond the
// initial limit covers every stream this side opened, the peer application
// has consumed them all and a close would discard nothing from its buffers.
// That is what a graceful close waits for: a transport receipt says only
// that the peer's QUIC stack holds the bytes, and quic-go drops unread
// buffered data when the connection closes.
type creditTracker struct {
	mu      sync.Mutex
	client  bool            // this side dialled: the peer's parameters are the server's
	known   bool            // the peer's transport parameters were seen
	limit   [2]int64        // the peer's initial limits
	granted [2]int64        // the highest stream count the peer allowed
	opened  [2]atomic.Int64 // streams this side opened; counted without mu on every open
	// changed is closed on the next change; made only while someone waits
	// (a graceful close), since MAX_STREAMS arrives for every few streams.
	changed chan struct{}
}

func (ct *creditTracker) init(client bool) { ct.client = client }

func (ct *creditTracker) onParameters(e qlog.ParametersSet) {
	// SentBy is quic-go's Perspective: 1 server, 2 client.
	fromServer := int(e.SentBy) == 1
	if fromServer != ct.client {
		return
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	ct.known = true
	ct.limit = [2]int64{e.InitialMaxStreamsUni, e.InitialMaxStreamsBidi}
	ct.granted[streamUni] = max(ct.granted[streamUni], e.InitialMaxStreamsUni)
	ct.granted[streamBidi] = max(ct.granted[streamBidi], e.InitialMaxStreamsBidi)
	ct.notifyLocked()
}

func (ct *creditTracker) onMaxStreams(f *qlog.MaxStreamsFrame) {
	t := int(uint8(f.Type))
	if t != streamUni && t != streamBidi {
		return
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if n := int64(f.MaxStreamNum); n > ct.granted[t] {
		ct.granted[t] = n
		ct.notifyLocked()
	}
}

func (ct *creditTracker) countOpened(t int) { ct.opened[t].Add(1) }

func (ct *creditTracker) notifyLocked() {
	if ct.changed != nil {
		close(ct.changed)
		ct.changed = nil
	}
}

// consumedLocked reports whether the peer completed every stream we opened.
func (ct *creditTracker) consumedLocked() bool {
	return ct.known && ct.granted[streamUni]-ct.limit[streamUni] >= ct.opened[streamUni].Load() &&
		ct.granted[streamBidi]-ct.limit[streamBidi] >= ct.opened[streamBidi].Load()
}

// AwaitPeerConsumed waits until the peer application has completed every
// stream this side opened (see creditTracker), the connection ended, or ctx
// ended. A graceful close calls it before closing.
func (c *Conn) AwaitPeerConsumed(ctx context.Context) error {
	if c.local != nil {
		return c.local.awaitConsumed(ctx)
	}
	ct := &c.receipts.credit
	for {
		ct.mu.Lock()
		done := ct.consumedLocked()
		if ct.changed == nil {
			ct.changed = make(chan struct{})
		}
		changed := ct.changed
		ct.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-c.done:
			return c.err
		case <-ctx.Done():
			return errs.Wrap(errs.KindCanceled, ctx.Err(), "the peer had not consumed every stream")
		}
	}
}
