package weida

import (
	"time"

	"github.com/weida-go/weida/core/transport"
)

// Connection statistics (SURFACE.md §2.4): per connected URL of a dialling
// endpoint, what the slot knows and what its transport measures. Nothing
// is invented: a local transport has no path to measure, so Transport is
// nil there; Remote is the peer's own path report, when both runtimes
// enabled PathReports on a QUIC connection (pathreports.go).

// TransportStats, PathStats and TrafficCounts are what quic-go measures on
// a QUIC connection (see the transport package for each field).
type (
	TransportStats = transport.TransportStats
	PathStats      = transport.PathStats
	TrafficCounts  = transport.TrafficCounts
)

// ConnectionStats describes one connected URL of a dialling endpoint.
type ConnectionStats struct {
	// URL is the address as the application dialled it, never one it did
	// not write (no resolved address, no learned fingerprint).
	URL string
	// Live reports whether the URL has a connection now; while it is down
	// Age is zero and Transport nil.
	Live bool
	// Age is how long the current connection has been live; a redial
	// starts it again.
	Age time.Duration
	// Redials counts the connections made after the first.
	Redials int
	// Transport is the QUIC stack's measurement; nil on local transports.
	Transport *TransportStats
	// Remote is the peer's newest path report; nil on local transports,
	// when either side left PathReports off, and until the first arrived.
	Remote *RemoteStats
}

// connectionStats reports every slot of the dialler, in connect order.
func (d *dialer) connectionStats() []ConnectionStats {
	now := time.Now()
	d.mu.Lock()
	out := make([]ConnectionStats, 0, len(d.slots))
	conns := make([]*transport.Conn, 0, len(d.slots))
	for _, s := range d.slots {
		cs := ConnectionStats{URL: s.url, Redials: s.redials}
		var c *transport.Conn
		if s.pc != nil {
			cs.Live, cs.Age, c = true, now.Sub(s.liveAt), s.pc.conn
		}
		out = append(out, cs)
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for i, c := range conns {
		if c == nil {
			continue
		}
		if ts, ok := c.Stats(); ok {
			out[i].Transport = &ts
		}
		out[i].Remote = remoteStats(c, now)
	}
	return out
}

// ConnectionStats reports each connected URL (see ConnectionStats).
func (r *Requester) ConnectionStats() []ConnectionStats { return r.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (p *Pusher) ConnectionStats() []ConnectionStats { return p.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (s *Subscriber) ConnectionStats() []ConnectionStats { return s.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (s *Surveyor) ConnectionStats() []ConnectionStats { return s.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (b *BusMember) ConnectionStats() []ConnectionStats { return b.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (d *Dish) ConnectionStats() []ConnectionStats { return d.d.connectionStats() }

// ConnectionStats reports each connected URL (see ConnectionStats).
func (p *Peer) ConnectionStats() []ConnectionStats { return p.d.connectionStats() }

// ConnectionStats reports the dialled URL of a dialling pair; a bound pair
// dials nothing and reports none.
func (p *Paired) ConnectionStats() []ConnectionStats {
	if d, ok := p.side.(*pairDialling); ok {
		return d.d.connectionStats()
	}
	return nil
}
