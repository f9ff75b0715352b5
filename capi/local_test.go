package main

import (
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// A local binding proves no key: its fingerprint must read as "" (the
// ABI's "none"), never as the zero key's text, which a caller could pin.
func TestLocalBindingFingerprintIsEmpty(t *testing.T) {
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	quic, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	inproc, err := rt.Listener().BindInproc("capi-local-test")
	if err != nil {
		t.Fatal(err)
	}
	unix, err := rt.Listener().BindUnix(t.TempDir() + "/s.sock")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		b    *weida.Binding
		want string
	}{
		{"quic", quic, id.Fingerprint().String()},
		{"inproc", inproc, ""},
		{"unix", unix, ""},
	}
	for _, c := range cases {
		if got := bindingFingerprint(c.b); got != c.want {
			t.Errorf("%s binding fingerprint = %q, want %q", c.name, got, c.want)
		}
	}
	if !strings.HasPrefix(bindingFingerprint(quic), "sha256:") {
		t.Errorf("quic fingerprint %q is not sha256:…", bindingFingerprint(quic))
	}
}

func TestLocalPeerIsAbsentWithoutAUnixPeer(t *testing.T) {
	if v, ok := localPeerText(weida.IncomingMeta{}); ok || v != "" {
		t.Errorf("localPeerText(empty meta) = %q, %v; want \"\", false", v, ok)
	}
	if _, _, err := metaUint(weida.IncomingMeta{}, metaLocalPeer); err == nil {
		t.Error("the local peer read as a number: want an error naming it a text field")
	}
}

// The struct carries what the library measured and nothing else: no
// transport figures without a transport, seconds for every time.
func TestConnectionStatsValue(t *testing.T) {
	quic := &weida.TransportStats{
		Path: weida.PathStats{RTT: 1500 * time.Microsecond, MinRTT: time.Millisecond, LatestRTT: 2 * time.Millisecond,
			RTTVariation: 250 * time.Microsecond, CongestionWindow: 12000, LostPackets: 3, LostBytes: 3600},
		TX: weida.TrafficCounts{Packets: 10, Bytes: 1000},
		RX: weida.TrafficCounts{Packets: 20, Bytes: 2000},
	}
	local := weida.ConnectionStats{URL: "weida+inproc://bus/p", Live: true, Age: 2 * time.Second, Redials: 1}
	v := connectionStatsValue(local)
	if v.live != 1 || v.has_transport != 0 || v.has_remote != 0 || v.age != 2 || v.redials != 1 || v.rtt != 0 || v.tx_bytes != 0 {
		t.Errorf("local stats = %+v; want live, 2 s, 1 redial, no transport, no remote", v)
	}
	down := connectionStatsValue(weida.ConnectionStats{URL: "weida://h:1/p", Redials: 4})
	if down.live != 0 || down.age != 0 || down.redials != 4 || down.has_transport != 0 {
		t.Errorf("down stats = %+v; want not live, age 0, 4 redials, no transport", down)
	}
	q := connectionStatsValue(weida.ConnectionStats{URL: "weida://h:1/p", Live: true, Transport: quic,
		Remote: &weida.RemoteStats{RTT: 3 * time.Millisecond}})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"rtt", float64(q.rtt), 0.0015}, {"min_rtt", float64(q.min_rtt), 0.001},
		{"latest_rtt", float64(q.latest_rtt), 0.002}, {"rtt_variation", float64(q.rtt_variation), 0.00025},
		{"congestion_window", float64(q.congestion_window), 12000}, {"lost_packets", float64(q.lost_packets), 3},
		{"lost_bytes", float64(q.lost_bytes), 3600}, {"tx_packets", float64(q.tx_packets), 10},
		{"tx_bytes", float64(q.tx_bytes), 1000}, {"rx_packets", float64(q.rx_packets), 20},
		{"rx_bytes", float64(q.rx_bytes), 2000}, {"has_transport", float64(q.has_transport), 1},
		{"has_remote", float64(q.has_remote), 1}, {"remote_rtt", float64(q.remote_rtt), 0.003},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("quic stats %s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
