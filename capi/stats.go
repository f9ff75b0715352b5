package main

/*
#include "bridge.h"
*/
import "C"

import (
	"strconv"
	"time"

	weida "github.com/weida-go/weida/core"
)

// Connection statistics (SURFACE.md §2.4, §3.7): one connected URL of a
// dialling endpoint per call, by index in connect order. A URL is text of
// any length (a unix socket path percent-encoded, a 256-byte bus name), so
// it travels in a caller's text buffer beside the size-led struct rather
// than in a fixed array inside it. Indexing is stable: an endpoint's URLs
// are only ever appended, so index i names the same URL on every call.

// statsSource is a dialling endpoint object: it reports its URLs.
type statsSource interface {
	object
	connectionStats() []weida.ConnectionStats
}

func (r *requesterObj) connectionStats() []weida.ConnectionStats  { return r.r.ConnectionStats() }
func (p *pusherObj) connectionStats() []weida.ConnectionStats     { return p.p.ConnectionStats() }
func (s *subscriberObj) connectionStats() []weida.ConnectionStats { return s.s.ConnectionStats() }
func (s *surveyorObj) connectionStats() []weida.ConnectionStats   { return s.s.ConnectionStats() }
func (b *busObj) connectionStats() []weida.ConnectionStats        { return b.m.ConnectionStats() }
func (d *dishObj) connectionStats() []weida.ConnectionStats       { return d.d.ConnectionStats() }
func (p *pairedObj) connectionStats() []weida.ConnectionStats     { return p.p.ConnectionStats() }

// secondsOf is a duration as the ABI's double seconds.
func secondsOf(d time.Duration) C.double { return C.double(d.Seconds()) }

// connectionStatsValue is s in the C struct's terms; the transport and
// remote figures stay zero with their has_ flag 0 where s has none.
func connectionStatsValue(s weida.ConnectionStats) C.weida_connection_stats_t {
	v := C.weida_connection_stats_t{age: secondsOf(s.Age), redials: C.uint64_t(s.Redials)}
	if s.Live {
		v.live = 1
	}
	if t := s.Transport; t != nil {
		v.has_transport = 1
		v.rtt, v.min_rtt = secondsOf(t.Path.RTT), secondsOf(t.Path.MinRTT)
		v.latest_rtt, v.rtt_variation = secondsOf(t.Path.LatestRTT), secondsOf(t.Path.RTTVariation)
		v.congestion_window = C.uint64_t(t.Path.CongestionWindow)
		v.lost_packets, v.lost_bytes = C.uint64_t(t.Path.LostPackets), C.uint64_t(t.Path.LostBytes)
		v.tx_packets, v.tx_bytes = C.uint64_t(t.TX.Packets), C.uint64_t(t.TX.Bytes)
		v.rx_packets, v.rx_bytes = C.uint64_t(t.RX.Packets), C.uint64_t(t.RX.Bytes)
	}
	if r := s.Remote; r != nil {
		v.has_remote, v.remote_known, v.remote_age = 1, C.uint32_t(r.Known), secondsOf(r.Age)
		v.remote_rtt, v.remote_min_rtt = secondsOf(r.RTT), secondsOf(r.MinRTT)
		v.remote_congestion_window, v.remote_congestion_events = C.uint64_t(r.CongestionWindow), C.uint64_t(r.CongestionEvents)
		v.remote_lost_packets, v.remote_lost_bytes = C.uint64_t(r.LostPackets), C.uint64_t(r.LostBytes)
		v.remote_sent_packets, v.remote_current_mtu = C.uint64_t(r.SentPackets), C.uint64_t(r.CurrentMTU)
		v.remote_tx_datagrams, v.remote_tx_bytes = C.uint64_t(r.TxDatagrams), C.uint64_t(r.TxBytes)
		v.remote_rx_datagrams, v.remote_rx_bytes = C.uint64_t(r.RxDatagrams), C.uint64_t(r.RxBytes)
	}
	return v
}

// outConnectionStats fills *stats and the URL buffer with the index-th
// connected URL of the T endpoint h; WEIDA_END past the last one.
func outConnectionStats[T statsSource](h uint64, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) C.int {
	if err := required(stats, "stats"); err != nil {
		return fail(err)
	}
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	all := o.connectionStats()
	if uint64(index) >= uint64(len(all)) {
		return fail(abiErr(codeEnd, "index "+strconv.FormatUint(uint64(index), 10)+" is past the "+
			strconv.Itoa(len(all))+" connected URLs"))
	}
	s := all[index]
	if err := writeSized(stats, connectionStatsValue(s), "stats"); err != nil {
		return fail(err)
	}
	return outText(s.URL, url, capacity, needed)
}

//export weida_requester_connection_stats
func weida_requester_connection_stats(h C.weida_requester_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*requesterObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_pusher_connection_stats
func weida_pusher_connection_stats(h C.weida_pusher_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*pusherObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_subscriber_connection_stats
func weida_subscriber_connection_stats(h C.weida_subscriber_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*subscriberObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_paired_connection_stats
func weida_paired_connection_stats(h C.weida_paired_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*pairedObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_surveyor_connection_stats
func weida_surveyor_connection_stats(h C.weida_surveyor_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*surveyorObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_bus_connection_stats
func weida_bus_connection_stats(h C.weida_bus_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*busObj](uint64(h), index, stats, url, capacity, needed)
}

//export weida_dish_connection_stats
func weida_dish_connection_stats(h C.weida_dish_t, index C.size_t, stats *C.weida_connection_stats_t, url *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return outConnectionStats[*dishObj](uint64(h), index, stats, url, capacity, needed)
}
