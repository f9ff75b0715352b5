package transport

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// An unwatched transfer (a publisher's copy) reaches the peer like any
// other, but the receipt tracker keeps nothing for it: no receipt among the
// outstanding ones, no packet record. A graceful close still waits for the
// peer to consume it.
func TestUnwatchedTransfersAreDeliveredWithoutReceiptRecords(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	payload := bytes.Repeat([]byte("copy "), 4000) // several packets
	h := wire.Data{Endpoint: wire.Some("/t")}
	sent, err := c.SendNowUnwatched(&h, payload[:100])
	if err != nil || !sent {
		t.Fatalf("SendNowUnwatched = %v, %v; want sent", sent, err)
	}
	out, err := c.OpenUniUnwatched(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	if out.Receipt() != nil {
		t.Fatal("an unwatched transfer hands out a receipt")
	}
	if _, err := out.Write(payload); err != nil {
		t.Fatal(err)
	}
	if r, err := out.Finish(); r != nil || err != nil {
		t.Fatalf("Finish = %v, %v; want no receipt and no error", r, err)
	}
	if n := len(c.OutstandingReceipts()); n != 0 {
		t.Fatalf("%d receipts outstanding, want none", n)
	}
	// The two streams reach the handler in either order: each accepted
	// stream is served while another goroutine accepts the next.
	wants := map[int][]byte{100: payload[:100], len(payload): payload}
	for range 2 {
		got, err := io.ReadAll(<-s.h.data)
		if want, ok := wants[len(got)]; err != nil || !ok || !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes, %v; want the 100-byte and the %d-byte transfer once each", len(got), err, len(payload))
		}
		delete(wants, len(got))
	}
	if err := c.AwaitPeerConsumed(testContext(t)); err != nil {
		t.Fatalf("the peer consumed both, yet: %v", err)
	}
	c.receipts.mu.Lock()
	defer c.receipts.mu.Unlock()
	if got := livePackets(c.receipts); got != 0 {
		t.Fatalf("%d packet records for unwatched streams, want none", got)
	}
}

// A graceful close waits for an unread unwatched transfer as for any
// stream: the peer has not consumed it.
func TestAwaitPeerConsumedWaitsForAnUnreadUnwatchedTransfer(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	if sent, err := c.SendNowUnwatched(&h, []byte("unread")); err != nil || !sent {
		t.Fatalf("SendNowUnwatched = %v, %v; want sent", sent, err)
	}
	in := <-s.h.data // held, not read
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	if err := c.AwaitPeerConsumed(ctx); err == nil {
		t.Fatal("AwaitPeerConsumed returned nil while the peer holds an unread transfer")
	}
	_, _ = io.ReadAll(in)
	if err := c.AwaitPeerConsumed(testContext(t)); err != nil {
		t.Fatal(err)
	}
}

// Unwatched sends reuse their transfer state once they return: every one
// still arrives whole and as it was sent, from goroutines sending at once.
func TestUnwatchedSendsReuseNothingStillInUse(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	const senders, each = 4, 20
	done := make(chan error, senders)
	for g := range senders {
		go func() {
			for i := range each {
				h := wire.Data{Endpoint: wire.Some("/t/" + itoa(g))}
				payload := bytes.Repeat([]byte{byte(g*each + i)}, 100+i)
				sent, err := c.SendNowUnwatched(&h, payload)
				if err == nil && !sent {
					out, oerr := c.OpenUniUnwatched(testContext(t), &h)
					if err = oerr; err == nil {
						if _, err = out.Write(payload); err == nil {
							_, err = out.Finish()
						}
					}
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	seen := make(map[byte]bool)
	finished := 0
	for range senders * each {
		var in *InStream
		for in == nil {
			select {
			case in = <-s.h.data:
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				finished++
			}
		}
		got, err := io.ReadAll(in)
		if err != nil || len(got) < 100 || !bytes.Equal(got, bytes.Repeat(got[:1], len(got))) {
			t.Fatalf("read %d bytes, %v: not one sender's payload whole", len(got), err)
		}
		k := got[0]
		g := int(k) / each
		if seen[k] || len(got) != 100+int(k)%each || in.Header.Endpoint.V != "/t/"+itoa(g) {
			t.Fatalf("payload %d (%d bytes) on %q: repeated, or its header is another send's", k, len(got), in.Header.Endpoint.V)
		}
		seen[k] = true
	}
	for ; finished < senders; finished++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
