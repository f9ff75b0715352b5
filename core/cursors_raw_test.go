package weida_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// The tests here put CURSOR streams on the wire by hand, from a bare
// quic-go peer that speaks weida's ALPN and sends a HELLO, so they can
// write what no weida reporter writes.

// cursorsRawPeer dials url's binding and sends a HELLO.
func cursorsRawPeer(t *testing.T, url string) *quic.Conn {
	t.Helper()
	addr, err := identity.ParseAddress(url)
	if err != nil {
		t.Fatal(err)
	}
	tlsConf, _, err := identity.ClientConfig(addr, identity.TrustByAddress(), nil, wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	hostPort := net.JoinHostPort(addr.Host, strconv.Itoa(int(addr.Port)))
	qc, err := quic.DialAddr(ctxFor(t), hostPort, tlsConf, &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = qc.CloseWithError(0, "") })
	hello := wire.DefaultHello()
	cursorsRawStream(t, qc, wire.AppendFrame(nil, wire.KindHello, &hello), true)
	return qc
}

// cursorsRawStream writes b on a new uni stream, finishing it when fin.
func cursorsRawStream(t *testing.T, qc *quic.Conn, b []byte, fin bool) *quic.SendStream {
	t.Helper()
	s, err := qc.OpenUniStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	if fin {
		_ = s.Close()
	}
	return s
}

// cursorsRawHead is a CURSOR stream: the head naming id, then records.
func cursorsRawHead(id uint64, records []byte) []byte {
	head := wire.CursorHead{ReportID: id}
	return append(wire.AppendFrame(nil, wire.KindCursor, &head), records...)
}

func cursorsRawRecord(level, offset uint64) []byte {
	return wire.AppendCursorRecord(nil, wire.CursorRecord{Level: level, Offset: offset})
}

// cursorsRawPush writes one DATA transfer to path, optionally ordering a report.
func cursorsRawPush(t *testing.T, qc *quic.Conn, path string, payload []byte, reportID uint64) {
	t.Helper()
	d := wire.Data{Endpoint: wire.Some(path)}
	if reportID != 0 {
		d.ReportID, d.Report = wire.Some(reportID), []uint64{weida.Processed}
	}
	cursorsRawStream(t, qc, append(wire.AppendFrame(nil, wire.KindData, &d), payload...), true)
}

// cursorsStopCode waits until the peer stops s and returns its code.
func cursorsStopCode(t *testing.T, s *quic.SendStream) wire.AppCode {
	t.Helper()
	select {
	case <-s.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was not stopped")
	}
	var se *quic.StreamError
	if cause := context.Cause(s.Context()); !errors.As(cause, &se) || !se.Remote {
		t.Fatalf("stream ended by %v, want the peer's STOP_SENDING", cause)
	}
	return wire.AppCode(se.ErrorCode)
}

// cursorsReportID waits for the next DATA stream the weida side opens
// toward qc and returns the report id its header carries.
func cursorsReportID(t *testing.T, qc *quic.Conn) uint64 {
	t.Helper()
	for {
		s, err := qc.AcceptUniStream(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		kind, hdr, err := wire.ReadHeader(s, wire.DefaultMaxHeaderBytes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if kind != wire.KindData { // the HELLO
			continue
		}
		d, err := wire.DecodeData(hdr)
		if err != nil || !d.ReportID.Ok {
			t.Fatalf("DATA header %+v, %v; want a report order", d, err)
		}
		return d.ReportID.V
	}
}

// cursorsOrderedPair connects a raw peer to a bound pair, makes it the pair's
// peer, and has the pair send it a transfer ordering Processed: it returns
// the peer, the report id it was given and the pair's Cursors.
func cursorsOrderedPair(t *testing.T) (*quic.Conn, uint64, *weida.Cursors) {
	t.Helper()
	srv := pairServe(t)
	qc := cursorsRawPeer(t, srv.url)
	cursorsRawPush(t, qc, "/pair", []byte("claim"), 0)
	pairExpect(t, srv.pair, "claim")
	cursors, err := srv.pair.SendReporting(ctxFor(t), []byte("report this"), reportOf(weida.Processed))
	if err != nil {
		t.Fatal(err)
	}
	return qc, cursorsReportID(t, qc), cursors
}

func TestCursorUnknownReportIDIsStoppedAndTheConnectionSurvives(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	qc := cursorsRawPeer(t, srv.url)
	// 0 is never handed out; 77 was not handed out on this connection.
	for _, id := range []uint64{0, 77} {
		s := cursorsRawStream(t, qc, cursorsRawHead(id, cursorsRawRecord(weida.Processed, 1)), false)
		if code := cursorsStopCode(t, s); code != wire.CodeCanceled {
			t.Fatalf("report id %d: stopped with %d, want CANCELED", id, code)
		}
	}
	cursorsRawPush(t, qc, "/jobs", []byte("alive"), 0)
	if got, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil || string(got) != "alive" {
		t.Fatalf("after the unknown reports: %q, %v; want the connection to carry on", got, err)
	}
}

func TestCursorFromARawReporter(t *testing.T) {
	qc, id, cursors := cursorsOrderedPair(t)
	// Reordered, repeated and unordered records: the maximum of the ordered
	// level is all that counts.
	var records []byte
	for _, r := range [][2]uint64{{weida.Processed, 7}, {weida.Processed, 3}, {weida.Accepted, 99}, {weida.Processed, 7}, {weida.ApplicationFloor, 1}} {
		records = append(records, cursorsRawRecord(r[0], r[1])...)
	}
	cursorsRawStream(t, qc, cursorsRawHead(id, records), true)
	if got := cursorsFinal(t, cursors); !maps.Equal(got, map[uint64]uint64{weida.Processed: 7}) {
		t.Fatalf("final snapshot %v, want Processed at 7", got)
	}
	// A second stream for a report already taken names an unknown id.
	s := cursorsRawStream(t, qc, cursorsRawHead(id, cursorsRawRecord(weida.Processed, 11)), false)
	if code := cursorsStopCode(t, s); code != wire.CodeCanceled {
		t.Fatalf("second stream for id %d stopped with %d, want CANCELED", id, code)
	}
	if got := cursors.Snapshot(); got[weida.Processed] != 7 {
		t.Fatalf("the stopped stream changed the report: %v", got)
	}
}

func TestCursorViolationsCloseTheConnection(t *testing.T) {
	whole := cursorsRawRecord(weida.Processed, 1<<20)
	tests := []struct {
		name    string
		records []byte
	}{
		{"record cut off by FIN", append(cursorsRawRecord(weida.Processed, 1), whole[:3]...)},
		{"level cut off by FIN", append(cursorsRawRecord(weida.Processed, 1), byte(weida.Processed))},
		{"reserved level", cursorsRawRecord(7, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qc, id, cursors := cursorsOrderedPair(t)
			cursorsRawStream(t, qc, cursorsRawHead(id, tt.records), true)
			if code := cursorsCloseCode(t, qc); code != wire.CodeProtocolViolation {
				t.Fatalf("closed with %d, want PROTOCOL_VIOLATION", code)
			}
			// The report ends with the connection; it is not an error.
			cursorsFinal(t, cursors)
		})
	}
}

// cursorsCloseCode waits for qc to be closed by its peer and returns the code.
func cursorsCloseCode(t *testing.T, qc *quic.Conn) wire.AppCode {
	t.Helper()
	select {
	case <-qc.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection was not closed")
	}
	var appErr *quic.ApplicationError
	if cause := context.Cause(qc.Context()); !errors.As(cause, &appErr) || !appErr.Remote {
		t.Fatalf("closed by %v, want the peer's application close", cause)
	}
	return wire.AppCode(appErr.ErrorCode)
}

func TestCursorPeerIgnoringCursorStreamsStillCompletesEveryTransfer(t *testing.T) {
	// The raw peer orders a report on every transfer and never accepts a
	// stream, so once its stream credit (quic-go's default, 100) is spent
	// the reports cannot even be opened. Receiving and reporting go on.
	const transfers = 150
	srv := pushpullServe(t, weida.Config{})
	qc := cursorsRawPeer(t, srv.url)
	for i := range transfers {
		cursorsRawPush(t, qc, "/jobs", []byte("job"), uint64(i+1))
	}
	// Reporting runs apart so that a Report or Finish that blocked would
	// fail the test at its deadline instead of hanging it.
	done := make(chan error, 1)
	go func() {
		for i := range transfers {
			body, _, rep, err := srv.pull.RecvReporting(ctxFor(t), 64)
			if err == nil && rep == nil {
				err = errors.New("no reporter")
			}
			if err == nil {
				err = rep.Report(weida.Processed, uint64(len(body)))
			}
			if err == nil {
				err = rep.Finish()
			}
			if err != nil {
				done <- fmt.Errorf("transfer %d: %w", i, err)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctxFor(t).Done():
		t.Fatal("receiving and reporting stalled behind cursor streams nobody reads")
	}
}
