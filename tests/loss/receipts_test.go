package loss

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/scale"
	"github.com/weida-go/weida/internal/udpproxy"
)

// TestReceiptsTellTheTruth sends one-way transfers through the lossy path
// and, halfway, cuts the path completely. Every receipt must resolve —
// delivered, or Indeterminate once the connection died — and every
// transfer reported delivered must be in what the receiver read, intact.
// A transfer still being written when the connection dies fails
// ConnectionLost: definite, never a delivery.
func TestReceiptsTellTheTruth(t *testing.T) {
	n := scale.Pick(300, 2000)
	s := startServer(t)
	url, proxy := s.lossyURL(t, sinkPath, 31)
	rt, err := weida.NewRuntime(weida.Config{Limits: weida.Limits{HandshakeTimeout: lossyLimits.HandshakeTimeout, IdleTimeout: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	p := rt.Peer(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	if err := p.Connect(ctxFor(t, time.Minute), url); err != nil {
		t.Fatalf("connect: %v", err)
	}

	// The receiver reads every transfer on its own goroutine, so one cut
	// short by the dying connection holds up no other, until the server
	// shuts down.
	var (
		mu       sync.Mutex
		received = map[int][]byte{}
		readers  sync.WaitGroup
	)
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			in, err := s.sink.RecvStream(context.Background())
			if err != nil {
				return // the puller was closed
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				b, err := in.Collect(1 << 20)
				if err != nil {
					return // cut short: never whole, never counted
				}
				mu.Lock()
				received[index(b)] = b
				mu.Unlock()
			}()
		}
	}()

	var sent []sentTransfer
	var lost error // why sending stopped
	cut := n / 2
	for i := 0; i < n && lost == nil; i++ {
		if i == cut {
			proxy.SetPolicy(udpproxy.ToServer, udpproxy.Policy{DropRate: 1})
			proxy.SetPolicy(udpproxy.ToClient, udpproxy.Policy{DropRate: 1})
		}
		var st sentTransfer
		if st, lost = send(p, i); lost == nil {
			sent = append(sent, st)
		}
	}
	// Sending into the cut blocks on congestion control until the idle
	// timeout ends the connection: a definite failure, never a delivery.
	if !errors.Is(lost, weida.ErrConnectionLost) {
		t.Fatalf("sending into the cut ended with %v, want ConnectionLost", lost)
	}

	delivered, indeterminate := 0, 0
	for _, st := range sent {
		err := st.delivery.Delivered(ctxFor(t, time.Minute))
		switch {
		case err == nil:
			delivered++
		case errors.Is(err, weida.ErrIndeterminate):
			indeterminate++
		default:
			t.Errorf("transfer %d resolved %v, want delivered or Indeterminate", st.i, err)
		}
	}
	// Delivered means the server's QUIC stack acknowledged every byte, and
	// the server reads from that stack locally: within the idle timeout that
	// ends the connection, it has read what it acknowledged.
	s.rt.Shutdown()
	readers.Wait()
	for _, st := range sent {
		if st.delivery.Delivered(context.Background()) != nil {
			continue
		}
		if got, ok := received[st.i]; !ok || !bytes.Equal(got, st.payload) {
			t.Errorf("transfer %d was reported delivered but the receiver has %d bytes of it (ok %v)", st.i, len(got), ok)
		}
	}
	if delivered == 0 || indeterminate == 0 {
		t.Fatalf("%d delivered, %d indeterminate of %d sent: the run did not test both outcomes", delivered, indeterminate, len(sent))
	}
	t.Logf("figure: %d transfers sent, %d delivered (all received intact), %d indeterminate after the cut, %d received in all; %s",
		len(sent), delivered, indeterminate, len(received), proxyFigures(proxy))
}

// sentTransfer is one finished transfer and its receipt.
type sentTransfer struct {
	i        int
	payload  []byte
	delivery *weida.Delivery
}

// send opens, writes and finishes transfer i.
func send(p *weida.Peer, i int) (sentTransfer, error) {
	payload := payloadFor(i)
	out, err := p.Open(context.Background(), weida.TransferMeta{})
	if err != nil {
		return sentTransfer{}, err
	}
	if _, err := out.Write(payload); err != nil {
		return sentTransfer{}, err
	}
	d, err := out.Finish()
	if err != nil {
		return sentTransfer{}, err
	}
	return sentTransfer{i: i, payload: payload, delivery: d}, nil
}
