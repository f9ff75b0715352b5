package transport

import "time"

// TransportStats is what a QUIC connection's stack measures (SURFACE.md
// §2.4 TransportStats): the path estimate and the traffic each way. Only
// what quic-go exposes is reported; a local transport has none of it.
type TransportStats struct {
	Path PathStats
	TX   TrafficCounts // sent
	RX   TrafficCounts // received
}

// PathStats is quic-go's view of the network path (RFC 9002 §5). quic-go
// does not expose the path MTU, so there is no MTU figure here.
type PathStats struct {
	RTT              time.Duration // smoothed RTT
	MinRTT           time.Duration
	LatestRTT        time.Duration
	RTTVariation     time.Duration // mean deviation
	CongestionWindow uint64        // bytes, QUIC packet overhead included
	LostPackets      uint64        // may fall: a packet declared lost can still arrive
	LostBytes        uint64
}

// TrafficCounts counts QUIC packets and their bytes, retransmissions
// included. quic-go counts packets, not UDP datagrams (coalesced handshake
// packets count one each), and bytes without UDP/IP headers.
type TrafficCounts struct {
	Packets uint64
	Bytes   uint64
}

// Stats is the connection's transport statistics; false on a local
// transport, which has no network path to measure.
func (c *Conn) Stats() (TransportStats, bool) {
	if c.qc == nil {
		return TransportStats{}, false
	}
	s := c.qc.ConnectionStats()
	return TransportStats{
		Path: PathStats{RTT: s.SmoothedRTT, MinRTT: s.MinRTT, LatestRTT: s.LatestRTT, RTTVariation: s.MeanDeviation,
			CongestionWindow: s.CongestionWindow, LostPackets: s.PacketsLost, LostBytes: s.BytesLost},
		TX: TrafficCounts{Packets: s.PacketsSent, Bytes: s.BytesSent},
		RX: TrafficCounts{Packets: s.PacketsReceived, Bytes: s.BytesReceived},
	}, true
}
