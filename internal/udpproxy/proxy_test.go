package udpproxy

import (
	"net"
	"testing"
	"time"
)

// TestHandshakePolicyJudgesLongHeaders: with the handshake policy dropping
// everything and the steady one nothing, datagrams opening with a QUIC long
// header are dropped and counted as handshake drops; short-header ones pass.
func TestHandshakePolicyJudgesLongHeaders(t *testing.T) {
	server, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	p, err := New(server.LocalAddr().(*net.UDPAddr), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetHandshakePolicy(ToServer, Policy{DropRate: 1})
	client, err := net.DialUDP("udp", nil, p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	datagrams := []struct {
		first byte
		pass  bool
	}{
		{0xC3, false}, // Initial (long header)
		{0xE0, false}, // Handshake (long header)
		{0x40, true},  // 1-RTT (short header)
		{0x5F, true},  // 1-RTT, key phase and packet number bits set
	}
	for _, d := range datagrams {
		if _, err := client.Write([]byte{d.first, 1, 2, 3}); err != nil {
			t.Fatal(err)
		}
	}
	// The short-header datagrams arrive in order; had a long-header one
	// passed, it would arrive first.
	_ = server.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 16)
	for _, d := range datagrams {
		if !d.pass {
			continue
		}
		n, _, err := server.ReadFromUDP(buf)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || buf[0] != d.first {
			t.Fatalf("received a datagram starting 0x%02X, want 0x%02X", buf[0], d.first)
		}
	}
	st := p.Stats(ToServer)
	if st.Received != len(datagrams) || st.Dropped != 2 || st.HandshakeDropped != 2 {
		t.Fatalf("stats %+v, want 4 received, 2 dropped, both handshake", st)
	}
}
