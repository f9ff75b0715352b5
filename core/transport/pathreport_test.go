package transport

import (
	"io"
	"testing"
	"time"

	"github.com/weida-go/weida/core/wire"
)

// awaitRemoteReport polls c until a path record arrived. The first record
// is written right after negotiation, so this waits for one round trip,
// never for the 2 s clock.
func awaitRemoteReport(t *testing.T, c *Conn) RemoteReport {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r, ok := c.RemoteReport(); ok {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatal("no path record arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPathReportsBothWays: with capability 2 on both sides each side holds
// the other's record, with what quic-go measures and nothing it does not.
func TestPathReportsBothWays(t *testing.T) {
	check := goroutineBaseline(t)
	cfg := NewConfig()
	cfg.PathReports = true
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), cfg)
	if !c.Agreed().PathReports {
		t.Fatal("path reports not agreed although both sides list capability 2")
	}
	before := time.Now()
	r := awaitRemoteReport(t, c)
	rec := r.Record
	if !rec.RTTMicros.Ok || !rec.MinRTTMicros.Ok || !rec.CongestionWindow.Ok || rec.CongestionWindow.V == 0 {
		t.Fatalf("record misses what quic-go measures: %+v", rec)
	}
	if !rec.TxBytes.Ok || rec.TxBytes.V == 0 || !rec.RxBytes.Ok || rec.RxBytes.V == 0 || !rec.SentPackets.Ok || rec.SentPackets.V == 0 {
		t.Fatalf("record has no traffic counts: %+v", rec)
	}
	if rec.CurrentMTU.Ok || rec.CongestionEvents.Ok || rec.TxDatagrams.Ok || rec.RxDatagrams.Ok {
		t.Fatalf("record states figures quic-go does not measure: %+v", rec)
	}
	if r.Received.Before(before.Add(-time.Minute)) || r.Received.After(time.Now()) {
		t.Fatalf("received at %v", r.Received)
	}
	if _, ok := c.Stats(); !ok {
		t.Fatal("no transport stats")
	}
	c.Close(wire.CodeNoError, "")
	s.l.Close(wire.CodeShutdown, "test over")
	check() // the writer and the reader ended with their connections
}

// TestPathReportsNeedBothSides: one side listing capability 2 agrees
// nothing, and the side that offered opens no REPORT stream (the peer
// would close with PROTOCOL_VIOLATION if it did).
func TestPathReportsNeedBothSides(t *testing.T) {
	on := NewConfig()
	on.PathReports = true
	for _, v := range []struct {
		name           string
		server, client Config
	}{{"server only", on, NewConfig()}, {"client only", NewConfig(), on}} {
		t.Run(v.name, func(t *testing.T) {
			s := startServer(t, v.server)
			c, h := dialServer(t, s, s.l.Addr(), v.client)
			if c.Agreed().PathReports {
				t.Fatal("path reports agreed with one side only")
			}
			// A transfer after negotiation, on a later stream than any
			// REPORT the offering side could have opened: it arrives, and
			// neither side closed the connection over it.
			out, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Finish(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.h.data:
			case err := <-h.closed:
				t.Fatalf("connection closed: %v", err)
			case <-testContext(t).Done():
				t.Fatal("the transfer never arrived")
			}
			if err := c.Err(); err != nil {
				t.Fatalf("connection ended: %v", err)
			}
			if _, ok := c.RemoteReport(); ok {
				t.Fatal("a path record arrived without the capability agreed")
			}
		})
	}
}

// TestPathReportsLetAGracefulCloseEnd: the REPORT stream never completes,
// so it must not count among the streams a graceful close waits for the
// peer to consume (AwaitPeerConsumed would otherwise return only when its
// context ends).
func TestPathReportsLetAGracefulCloseEnd(t *testing.T) {
	cfg := NewConfig()
	cfg.PathReports = true
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), cfg)
	awaitRemoteReport(t, c) // both REPORT streams are open by now
	out, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	in := <-s.h.data
	if _, err := io.Copy(io.Discard, in); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitPeerConsumed(testContext(t)); err != nil {
		t.Fatalf("a graceful close would wait for the REPORT stream: %v", err)
	}
}
