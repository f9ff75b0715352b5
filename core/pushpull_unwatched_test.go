package weida_test

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/internal/faults"
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

// A Send's context bounds its wait to write, not the message once it is
// finished: a context that ends after a Send wrote its payload the waiting
// way and queued the FIN leaves the message whole at the puller. (The
// watcher that resets a stalled write stayed armed past the FIN, so a
// deadline passing as Send returned nil reset a message already sent.)
func TestASendsContextEndingOnceItFinishedLeavesTheMessageWhole(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	payload := bytes.Repeat([]byte{7}, 20<<10) // above one non-waiting write's room
	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	t.Cleanup(faults.Set(&faults.WholeFinished, func(p []byte) {
		if &p[0] == &payload[0] {
			cancel() // the caller's deadline passes as Send returns
		}
	}))
	if err := push.Send(ctx, payload); err != nil {
		t.Fatalf("send: %v", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the send did not take the waiting way: the test's hook never ran")
	}
	body, _, err := srv.pull.Recv(ctxFor(t), int64(len(payload)))
	if err != nil {
		t.Fatalf("a message whose Send returned nil: %v", err)
	}
	if !bytes.Equal(body, payload) {
		t.Fatalf("%d bytes arrived, want the %d sent", len(body), len(payload))
	}
}
