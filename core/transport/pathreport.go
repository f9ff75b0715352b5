package transport

import (
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// Path reports (PROTOCOL.md §8.9): when both HELLOs list capability 2, each
// side opens one REPORT stream right after negotiation and writes a record
// of what quic-go measures every PathReportInterval; the receiver keeps only
// the newest record and when it came. Local transports exchange none.

// PathReportInterval is the fixed clock of REPORT records.
const PathReportInterval = 2 * time.Second

// RemoteReport is the newest path record the peer sent and when it arrived.
type RemoteReport struct {
	Record   wire.PathReport
	Received time.Time
}

// pathReports is a connection's REPORT state.
type pathReports struct {
	inbound atomic.Bool                  // the peer opened its REPORT stream
	newest  atomic.Pointer[RemoteReport] // nil until a record arrived
}

// offersPathReports reports whether this side's HELLO lists capability 2:
// without it no REPORT can ever be agreed, so one is refused at its
// preamble, before negotiation.
func (c *Conn) offersPathReports() bool { return c.local == nil && c.cfg.PathReports }

// RemoteReport returns the peer's newest path record; false while none
// arrived, when path reports were not agreed, and on local transports.
func (c *Conn) RemoteReport() (RemoteReport, bool) {
	if r := c.paths.newest.Load(); r != nil {
		return *r, true
	}
	return RemoteReport{}, false
}

// startPathReports starts the REPORT writer once negotiation agreed path
// reports. It runs on the goroutine that processed the HELLO, which the
// connection's WaitGroup already counts, so Add cannot race Close's Wait.
func (c *Conn) startPathReports() {
	if c.local != nil || !c.agreed.PathReports {
		return
	}
	c.wg.Add(1)
	go c.writePathReports()
}

// writePathReports opens the REPORT stream and writes a record at once and
// then every PathReportInterval until the connection ends (which also
// fails a write blocked on flow control).
func (c *Conn) writePathReports() {
	defer c.wg.Done()
	s, err := c.qc.OpenUniStreamSync(c.qc.Context())
	if err != nil {
		return
	}
	// Not counted in the credit tracker: the stream lives as long as the
	// connection, so the peer never completes it and never grants its
	// credit back, and a graceful close waiting for that would wait out
	// its whole deadline.
	buf := wire.AppendFrame(make([]byte, 0, 160), wire.KindReport, wire.ReportHead{})
	tick := time.NewTicker(PathReportInterval)
	defer tick.Stop()
	for {
		rec := pathRecord(c.qc.ConnectionStats())
		if _, err := s.Write(wire.AppendReportRecord(buf, &rec)); err != nil {
			return
		}
		buf = buf[:0]
		select {
		case <-tick.C:
		case <-c.done:
			return
		}
	}
}

// pathRecord is a record of what quic-go measures. quic-go does not expose
// congestion events or the path MTU, and counts packets rather than UDP
// datagrams, so keys 3, 7, 8 and 10 are left out (unknown) rather than
// guessed; an RTT is left out until quic-go has a sample.
func pathRecord(s quic.ConnectionStats) wire.PathReport {
	p := wire.PathReport{
		CongestionWindow: wire.Some(s.CongestionWindow),
		LostPackets:      wire.Some(s.PacketsLost),
		LostBytes:        wire.Some(s.BytesLost),
		SentPackets:      wire.Some(s.PacketsSent),
		TxBytes:          wire.Some(s.BytesSent),
		RxBytes:          wire.Some(s.BytesReceived),
	}
	if s.SmoothedRTT > 0 {
		p.RTTMicros = wire.Some(uint64(s.SmoothedRTT.Microseconds()))
	}
	if s.MinRTT > 0 {
		p.MinRTTMicros = wire.Some(uint64(s.MinRTT.Microseconds()))
	}
	return p
}

// dispatchReport serves the peer's REPORT stream for its whole life. Every
// breach of §8.9 is returned as a violation.
func (c *Conn) dispatchReport(hdr []byte, s recvHalf) error {
	switch {
	case c.local != nil:
		return &wire.ViolationError{Reason: "REPORT on a local transport"}
	case !c.agreed.PathReports:
		return &wire.ViolationError{Reason: "REPORT without the path_report capability agreed"}
	case !c.paths.inbound.CompareAndSwap(false, true):
		return &wire.ViolationError{Reason: "second REPORT stream from the peer"}
	}
	if _, err := wire.DecodeReportHead(hdr); err != nil {
		return err
	}
	return c.readPathReports(s)
}

// readPathReports reads records until FIN or the stream's end, keeping the
// newest. A record's length is judged before its body is buffered, so the
// buffer never holds more than one capped record and its length.
func (c *Conn) readPathReports(s recvHalf) error {
	var buf [wire.MaxReportRecordLen + wire.MaxPreambleLen]byte
	have := 0
	for {
		n, err := s.Read(buf[have:])
		have += n
		used := 0
		for {
			rec, m, perr := wire.ParseReportRecord(buf[used:have])
			if errors.Is(perr, wire.ErrNeedMore) {
				break
			}
			if perr != nil {
				s.CancelRead(quic.StreamErrorCode(wire.CodeProtocolViolation))
				return perr
			}
			used += m
			c.paths.newest.Store(&RemoteReport{Record: rec, Received: time.Now()})
		}
		have = copy(buf[:], buf[used:have])
		if err == io.EOF {
			return wire.CheckReportRecordEnd(buf[:have])
		}
		if err != nil {
			return nil // reset by the peer or the connection ended
		}
	}
}
