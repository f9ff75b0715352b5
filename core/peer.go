package weida

import (
	"context"
)

// Peer is the raw (L0) dialling endpoint: it connects to paths and opens
// one-way transfers and exchanges on them, round-robin over live
// connections, redialling lost ones under the reconnect policy.
type Peer struct {
	d    *dialer
	segs segmentHub // uplink segments (segmentpeer.go)
}

// Peer creates a raw dialling endpoint that verifies servers under trust.
func (rt *Runtime) Peer(trust Trust, opts ...EndpointOption) *Peer {
	return &Peer{d: newDialer(rt, trust, opts), segs: newSegmentHub(rt.cfg.SubscriberBufferBytes)}
}

// Connect dials url (weida://[sha256:…@]host:port/path) and adds it as a
// slot. It returns once the connection is negotiated. A key that is not
// trusted fails with Untrusted naming the key that answered.
func (p *Peer) Connect(ctx context.Context, url string) error { return p.d.connect(ctx, url) }

// Disconnect removes url's slot; it reports whether there was one.
func (p *Peer) Disconnect(url string) bool { return p.d.disconnect(url) }

// PeerCount is the number of live connections.
func (p *Peer) PeerCount() int { return p.d.peerCount() }

// Events returns a reader of this endpoint's slot transitions.
func (p *Peer) Events() *PeerEvents { return p.d.events.subscribe() }

// Open opens a one-way transfer to the next live connection's path. With
// every connection down it waits for a redial (bounded by ctx and
// Config.SendTimeout).
func (p *Peer) Open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	if err := checkReportOrder(meta); err != nil { // cursors: refused before any wait
		return nil, err
	}
	return p.d.openTransfer(ctx, meta)
}

// OpenBi opens an exchange: write the request to the OutgoingTransfer and
// Finish it, and read the reply from the ReplyStream (concurrently for
// large requests: both halves stream at once).
func (p *Peer) OpenBi(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	if err := checkReportOrder(meta); err != nil { // cursors: refused before any wait
		return nil, nil, err
	}
	return p.d.openExchange(ctx, meta)
}

// Close releases the endpoint's connections and stops its redials.
// Transfers already finished still get their receipts.
func (p *Peer) Close() error {
	p.d.close()
	p.segs.shut()
	return nil
}
