package weida

import (
	"time"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// RemoteStats is the peer's own path report (PROTOCOL.md §8.9): what its
// QUIC stack measured of the connection, as of the newest record it sent
// (one every 2 s). A figure the peer did not state is unknown, not zero:
// Has tells the two apart.
type RemoteStats struct {
	RTT              time.Duration // smoothed RTT (µs precision)
	MinRTT           time.Duration
	CongestionWindow uint64 // bytes
	CongestionEvents uint64
	LostPackets      uint64
	LostBytes        uint64
	SentPackets      uint64
	CurrentMTU       uint64
	TxDatagrams      uint64
	TxBytes          uint64
	RxDatagrams      uint64
	RxBytes          uint64
	// Known has bit f set for each RemoteField f the record stated.
	Known uint16
	// Age is how long ago the record arrived.
	Age time.Duration
}

// RemoteField names one figure of a RemoteStats; its value is the record
// key of PROTOCOL.md §8.9 and the bit it has in Known.
type RemoteField uint

// The figures of a path report, in record-key order.
const (
	RemoteRTT RemoteField = iota
	RemoteMinRTT
	RemoteCongestionWindow
	RemoteCongestionEvents
	RemoteLostPackets
	RemoteLostBytes
	RemoteSentPackets
	RemoteCurrentMTU
	RemoteTxDatagrams
	RemoteTxBytes
	RemoteRxDatagrams
	RemoteRxBytes
)

// Has reports whether the peer stated figure f.
func (r *RemoteStats) Has(f RemoteField) bool { return r.Known&(1<<f) != 0 }

// remoteStats is c's newest path report as of now; nil when there is none.
func remoteStats(c *transport.Conn, now time.Time) *RemoteStats {
	rr, ok := c.RemoteReport()
	if !ok {
		return nil
	}
	p := &rr.Record
	rs := &RemoteStats{Age: max(now.Sub(rr.Received), 0)}
	us := func(v uint64) time.Duration { return time.Duration(min(v, uint64(1<<63-1)/1000)) * time.Microsecond }
	for f, v := range []struct {
		opt wire.Opt[uint64]
		set func(uint64)
	}{
		{p.RTTMicros, func(v uint64) { rs.RTT = us(v) }},
		{p.MinRTTMicros, func(v uint64) { rs.MinRTT = us(v) }},
		{p.CongestionWindow, func(v uint64) { rs.CongestionWindow = v }},
		{p.CongestionEvents, func(v uint64) { rs.CongestionEvents = v }},
		{p.LostPackets, func(v uint64) { rs.LostPackets = v }},
		{p.LostBytes, func(v uint64) { rs.LostBytes = v }},
		{p.SentPackets, func(v uint64) { rs.SentPackets = v }},
		{p.CurrentMTU, func(v uint64) { rs.CurrentMTU = v }},
		{p.TxDatagrams, func(v uint64) { rs.TxDatagrams = v }},
		{p.TxBytes, func(v uint64) { rs.TxBytes = v }},
		{p.RxDatagrams, func(v uint64) { rs.RxDatagrams = v }},
		{p.RxBytes, func(v uint64) { rs.RxBytes = v }},
	} {
		if v.opt.Ok {
			v.set(v.opt.V)
			rs.Known |= 1 << f
		}
	}
	return rs
}
