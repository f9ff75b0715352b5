package weida_test

import (
	"net"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/udpproxy"
)

// A Send hands out no receipt, so it keeps none: here the puller's ACKs are
// held back, and an Open's transfer stays tracked while three Sends leave
// nothing behind. The drain still waits for the puller to consume what
// they wrote, and counts none of it once written.
func TestASendKeepsNoReceiptAndTheDrainStillWaitsForItsPuller(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	addr, err := net.ResolveUDPAddr("udp", srv.b.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := udpproxy.New(addr, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	client := pushpullRuntime(t, weida.Config{})
	push := pushpullPusher(t, client, nil, "weida://"+srv.b.Fingerprint().String()+"@"+proxy.Addr().String()+"/jobs")
	proxy.Hold(udpproxy.ToClient) // no ACK reaches the pusher: nothing resolves
	opened, err := push.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Write([]byte("opened")); err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Finish(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := push.Send(ctxFor(t), []byte("sent")); err != nil {
			t.Fatal(err)
		}
	}
	if n := weida.TrackedReceipts(client); n != 1 {
		t.Fatalf("%d receipts tracked, want 1: the Open's, none for the Sends", n)
	}
	proxy.Release(udpproxy.ToClient)

	// The puller never reads: the drain waits for it to its deadline, and
	// what Send wrote is not counted as outstanding.
	deadline := time.Now().Add(400 * time.Millisecond)
	d, err := client.Drain(deadline)
	if err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(deadline) {
		t.Fatal("the drain returned before its deadline while the puller had consumed nothing")
	}
	if d.Outstanding != 0 || d.Delivered > 1 {
		t.Fatalf("drained %+v: want nothing outstanding, at most the Open's receipt delivered", d)
	}
}
