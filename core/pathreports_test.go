package weida_test

import (
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// TestPathReportsInConnectionStats: with PathReports on both runtimes a
// QUIC connection's stats carry the peer's record (what its quic-go
// measured, nothing it did not) and the record's age; a local connection
// never has one; nor does QUIC when either side left them off.
func TestPathReportsInConnectionStats(t *testing.T) {
	on := weida.Config{PathReports: true}
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		srv := runtimeWith(t, on)
		b := tr.bind(t, srv)
		if _, err := srv.Listener().Acceptor("/s"); err != nil {
			t.Fatal(err)
		}
		p := runtimeWith(t, on).Peer(weida.TrustByAddress())
		if err := p.Connect(ctxFor(t), b.URL("/s")); err != nil {
			t.Fatal(err)
		}
		sendBytes(t, p, 1<<10)
		if tr.name != "quic" {
			if r := onlyStats(t, p).Remote; r != nil {
				t.Fatalf("a %s connection has a remote report %+v", tr.name, *r)
			}
			return
		}
		r := awaitRemote(t, p)
		for _, f := range []weida.RemoteField{weida.RemoteRTT, weida.RemoteMinRTT, weida.RemoteCongestionWindow,
			weida.RemoteLostPackets, weida.RemoteSentPackets, weida.RemoteTxBytes, weida.RemoteRxBytes} {
			if !r.Has(f) {
				t.Errorf("remote report misses figure %d, which quic-go measures: %+v", f, *r)
			}
		}
		for _, f := range []weida.RemoteField{weida.RemoteCurrentMTU, weida.RemoteCongestionEvents, weida.RemoteTxDatagrams, weida.RemoteRxDatagrams} {
			if r.Has(f) {
				t.Errorf("remote report states figure %d, which quic-go does not measure: %+v", f, *r)
			}
		}
		if r.RTT <= 0 || r.TxBytes == 0 || r.RxBytes == 0 || r.CongestionWindow == 0 || r.Age < 0 {
			t.Fatalf("remote report %+v", *r)
		}
	})
}

func TestPathReportsNeedBothRuntimes(t *testing.T) {
	srv := runtimeWith(t, weida.Config{PathReports: true})
	b := bindLoopback(t, srv)
	if _, err := srv.Listener().Acceptor("/s"); err != nil {
		t.Fatal(err)
	}
	p := testRuntime(t).Peer(weida.TrustByAddress())
	if err := p.Connect(ctxFor(t), b.URL("/s")); err != nil {
		t.Fatal(err)
	}
	// The transfer rides a later stream than any REPORT the server could
	// have opened after negotiation, which the client would have refused
	// by closing the connection (PROTOCOL_VIOLATION) before the receipt.
	sendBytes(t, p, 1<<10)
	if r := onlyStats(t, p).Remote; r != nil {
		t.Fatalf("remote report %+v although the client left path reports off", *r)
	}
}

// awaitRemote polls the endpoint's stats until the peer's record arrived;
// the first is sent right after negotiation, so no 2 s wait is involved.
func awaitRemote(t *testing.T, p *weida.Peer) *weida.RemoteStats {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r := onlyStats(t, p).Remote; r != nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatal("no remote report in the connection stats")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
