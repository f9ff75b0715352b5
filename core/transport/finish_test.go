package transport

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// silentPeer is a raw quic-go server that sends its HELLO and then reads
// nothing, with a connection window of window bytes: what a client writes
// beyond the window waits for room that never comes.
func silentPeer(t *testing.T, window uint64) identity.Address {
	return silentPeerWith(t, window, false)
}

// silentPeerWith is silentPeer, offering datagrams (the capability and
// the transport parameter) when datagrams is set.
func silentPeerWith(t *testing.T, window uint64, datagrams bool) identity.Address {
	t.Helper()
	id, tlsConf := serverTLS(t)
	ln, err := quic.ListenAddr("127.0.0.1:0", tlsConf, &quic.Config{EnableDatagrams: datagrams,
		InitialConnectionReceiveWindow: window, MaxConnectionReceiveWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		qc, err := ln.Accept(context.Background())
		if err != nil {
			return
		}
		if s, err := qc.OpenUniStream(); err == nil {
			h := wire.DefaultHello()
			if datagrams {
				h.Capabilities = append(h.Capabilities, wire.CapabilityDatagram)
			}
			_, _ = s.Write(wire.AppendFrame(nil, wire.KindHello, &h))
			_ = s.Close()
		}
	}()
	addr := ln.Addr().(*net.UDPAddr)
	return identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: id.Fingerprint(), HasFingerprint: true,
		Host: addr.IP.String(), Port: uint16(addr.Port), Path: "/t"}
}

// A transfer finished with no payload sends its header at Finish; when the
// header waits for flow-control room, a Cancel from another goroutine (what
// a sender's ending context does) must unblock it: Finish may not hold the
// lock Cancel takes across that write.
func TestCancelUnblocksAFinishWaitingForRoom(t *testing.T) {
	const window = 4 << 10
	c, err := Dial(testContext(t), silentPeer(t, window), identity.TrustByAddress(), nil, NewConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	// Larger than the window, and than what quic-go buffers without waiting.
	h := wire.Data{Endpoint: wire.Some("/t"), Tracestate: wire.Some(strings.Repeat("s", 3*window))}
	out, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	out.s = &announcingHalf{sendHalf: out.s, writing: entered}
	finished := make(chan error, 1)
	go func() {
		_, err := out.Finish()
		finished <- err
	}()
	<-entered // Finish is writing the header, which waits for room
	cancelled := make(chan struct{})
	go func() {
		out.Cancel()
		close(cancelled)
	}()
	select {
	case err := <-finished:
		if err == nil {
			t.Fatal("Finish of a canceled transfer succeeded")
		}
	case <-testContext(t).Done():
		t.Fatal("Finish still blocked after Cancel")
	}
	<-cancelled
}

// announcingHalf closes writing when its first Write begins.
type announcingHalf struct {
	sendHalf
	writing chan struct{}
	once    sync.Once
}

func (a *announcingHalf) Write(p []byte) (int, error) {
	a.once.Do(func() { close(a.writing) })
	return a.sendHalf.Write(p)
}

// OpenFlow's header can wait for the connection's flow-control room (one
// larger than a packet is not copied at once); the context ending must
// cut that wait short, as it cuts the wait for stream credit.
func TestOpenFlowReturnsWhenItsContextEndsWhileTheHeaderWaitsForRoom(t *testing.T) {
	const window = 4 << 10
	c, err := Dial(testContext(t), silentPeerWith(t, window, true), identity.TrustByAddress(), nil, datagramsConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	if !c.DatagramsAgreed() {
		t.Fatal("datagrams were not agreed with the silent peer")
	}
	h := wire.Flow{Endpoint: "/t", Tracestate: wire.Some(strings.Repeat("s", 3*window))}
	ctx, cancel := context.WithTimeout(testContext(t), 100*time.Millisecond)
	defer cancel()
	opened := make(chan error, 1)
	go func() {
		_, err := c.OpenFlow(ctx, h)
		opened <- err
	}()
	select {
	case err := <-opened:
		if !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("OpenFlow whose context ended: %v, want Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OpenFlow stayed blocked in its header long after its context ended")
	}
}
