package transport

import "time"

// PathEstimate is the connection's current smoothed RTT and congestion
// window, what a lossy sender needs to judge how long bytes already handed
// to QUIC should take to be acknowledged (a superseded segment's grace,
// SEMANTICS.md §2.7). ok is false on a local transport, which has no path
// to estimate (and where that grace is zero).
func (c *Conn) PathEstimate() (rtt time.Duration, cwnd uint64, ok bool) {
	if c.qc == nil {
		return 0, 0, false
	}
	s := c.qc.ConnectionStats()
	return s.SmoothedRTT, s.CongestionWindow, true
}
