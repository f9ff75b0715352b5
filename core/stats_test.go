package weida_test

import (
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// bindAt binds rt on tr at the address of an earlier binding (empty: a
// fresh one); QUIC keeps id, so a redial finds the key it pinned.
func bindAt(t *testing.T, tr testTransport, rt *weida.Runtime, addr string, id *weida.Identity) *weida.Binding {
	t.Helper()
	var b *weida.Binding
	var err error
	switch {
	case addr == "":
		if tr.name != "quic" {
			return tr.bind(t, rt)
		}
		b, err = rt.Listener().BindQUIC("127.0.0.1:0", id)
	case tr.name == "quic":
		b, err = rt.Listener().BindQUIC(addr, id)
	case tr.name == "inproc":
		b, err = rt.Listener().BindInproc(addr)
	default:
		b, err = rt.Listener().BindUnix(addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sendBytes pushes n bytes to the peer's acceptor and waits for the receipt.
func sendBytes(t *testing.T, p *weida.Peer, n int) {
	t.Helper()
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	d, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Delivered(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
}

// onlyStats returns the endpoint's one connection's statistics.
func onlyStats(t *testing.T, p *weida.Peer) weida.ConnectionStats {
	t.Helper()
	all := p.ConnectionStats()
	if len(all) != 1 {
		t.Fatalf("%d connection stats, want 1", len(all))
	}
	return all[0]
}

// TestConnectionStats (SURFACE.md §4.2 `stats`): the URL is the one
// dialled; QUIC reports RTT and traffic that grows, a local connection has
// an age and no transport figures; a redial is counted and restarts the age.
func TestConnectionStats(t *testing.T) {
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		id, err := weida.GenerateIdentity()
		if err != nil {
			t.Fatal(err)
		}
		srv := runtimeWith(t, weida.Config{})
		b := bindAt(t, tr, srv, "", id)
		if _, err := srv.Listener().Acceptor("/s"); err != nil {
			t.Fatal(err)
		}
		url := b.URL("/s")
		p := testRuntime(t).Peer(weida.TrustByAddress(), fastRedial())
		events := p.Events()
		if err := p.Connect(ctxFor(t), url); err != nil {
			t.Fatal(err)
		}
		sendBytes(t, p, 32<<10)
		first := onlyStats(t, p)
		if first.URL != url || !first.Live || first.Age <= 0 || first.Redials != 0 || first.Remote != nil {
			t.Fatalf("stats %+v: want the dialled URL, live, an age, no redial, no remote report", first)
		}
		if tr.name != "quic" {
			if first.Transport != nil {
				t.Fatalf("a %s connection reports transport figures %+v", tr.name, *first.Transport)
			}
		} else {
			ts := first.Transport
			if ts == nil || ts.Path.RTT <= 0 || ts.TX.Bytes < 32<<10 || ts.RX.Packets == 0 {
				t.Fatalf("QUIC transport stats %+v: want an RTT and the traffic sent", ts)
			}
			sendBytes(t, p, 32<<10)
			if again := onlyStats(t, p).Transport; again.TX.Bytes < ts.TX.Bytes+32<<10 || again.TX.Packets <= ts.TX.Packets {
				t.Fatalf("tx did not grow with 32 KiB more: %+v then %+v", ts.TX, again.TX)
			}
		}

		beforeLoss := time.Now()
		addr := b.LocalAddr()
		srv.Shutdown()
		nextEvent(t, events, weida.EventLost)
		bindAt(t, tr, runtimeWith(t, weida.Config{}), addr, id)
		nextEvent(t, events, weida.EventConnected)
		redialled := onlyStats(t, p)
		if !redialled.Live || redialled.Redials != 1 || redialled.URL != url {
			t.Fatalf("after a redial: %+v, want live, one redial, the same URL", redialled)
		}
		if redialled.Age > time.Since(beforeLoss) {
			t.Fatalf("age %v covers the connection before the loss (%v ago): it did not restart", redialled.Age, time.Since(beforeLoss))
		}
	})
}
