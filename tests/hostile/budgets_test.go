package hostile

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/scale"
)

// TestHelloFlood: a peer may send exactly one HELLO (spec README). A flood
// of HELLO streams, before or after negotiation, closes the connection with
// PROTOCOL_VIOLATION.
func TestHelloFlood(t *testing.T) {
	v := newVictim(t, weida.Config{})
	for _, afterNegotiation := range []bool{false, true} {
		t.Run(fmt.Sprintf("after negotiation %v", afterNegotiation), func(t *testing.T) {
			c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if afterNegotiation {
				mustSend(t, c.Uni(rawpeer.Hello()))
				rawExchange(t, c, []byte("negotiated"))
			}
			for range 64 {
				if c.Uni(rawpeer.Hello()) != nil {
					break // the victim already closed the connection
				}
			}
			code, err := c.ClosedWith(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			if code != wire.CodeProtocolViolation {
				t.Fatalf("closed with %s, want PROTOCOL_VIOLATION", code)
			}
		})
	}
	v.stillServes(t)
	v.settled(t)
}

// maxSubscriptions is PROTOCOL.md §13's filters per connection.
const maxSubscriptions = 256

// TestSubscriptionFlood: 256 distinct filters are accepted (and a repeated
// one is not counted again, §17 item 18); the 257th closes the connection
// with LIMIT_EXCEEDED (§8.4.2), and its filters are dropped wholesale.
func TestSubscriptionFlood(t *testing.T) {
	v := newVictim(t, weida.Config{})
	c := dialWithHello(t, v)
	subscribe := func(filter string) error {
		return c.Uni(rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: pubPath, Filter: filter}))
	}
	for range 300 {
		mustSend(t, subscribe("repeated"))
	}
	for i := 1; i < maxSubscriptions; i++ {
		mustSend(t, subscribe(fmt.Sprintf("f%d", i)))
	}
	await(t, "the publisher to hold 256 filters", func() bool { return v.pub.FilterCount() == maxSubscriptions })
	if !c.Alive() {
		t.Fatal("256 filters closed the connection")
	}
	mustSend(t, subscribe("one too many"))
	code, err := c.ClosedWith(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if code != wire.CodeLimitExceeded {
		t.Fatalf("closed with %s, want LIMIT_EXCEEDED", code)
	}
	await(t, "the filters to be dropped", func() bool { return v.pub.FilterCount() == 0 })
	v.stillServes(t)
	v.settled(t)
}

// TestConnectionFlood: connections past max_connections, and a key's
// connections past max_connections_per_peer, are closed with
// LIMIT_EXCEEDED (§13); anonymous connections are not counted per peer.
func TestConnectionFlood(t *testing.T) {
	const perPeer = 3
	maxConns := scale.Pick(12, 1024)
	v := newVictim(t, weida.Config{MaxConnections: maxConns, MaxConnectionsPerPeer: perPeer})
	key, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	var live []*rawpeer.Conn
	defer func() {
		for _, c := range live {
			c.Close()
		}
	}()
	// admitted dials and reports whether the victim admitted the
	// connection: it completes an exchange, or it is closed with code.
	admitted := func(id *weida.Identity) (bool, wire.AppCode) {
		c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), id)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, c)
		if c.Uni(rawpeer.Hello()) == nil && exchangeWorks(c) {
			return true, 0
		}
		code, err := c.ClosedWith(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		return false, code
	}
	for i := range perPeer {
		if ok, code := admitted(key); !ok {
			t.Fatalf("connection %d of one key closed with %s, want admitted", i+1, code)
		}
	}
	if ok, code := admitted(key); ok || code != wire.CodeLimitExceeded {
		t.Fatalf("connection %d of one key: admitted %v, code %s; want LIMIT_EXCEEDED", perPeer+1, ok, code)
	}
	// The bystander holds one connection and the key holds perPeer.
	for i := 1 + perPeer; i < maxConns; i++ {
		if ok, code := admitted(nil); !ok {
			t.Fatalf("anonymous connection %d of %d closed with %s, want admitted", i+1, maxConns, code)
		}
	}
	for range 3 {
		if ok, code := admitted(nil); ok || code != wire.CodeLimitExceeded {
			t.Fatalf("a connection past max_connections: admitted %v, code %s; want LIMIT_EXCEEDED", ok, code)
		}
	}
	echoOnce(t, v.bystander, "bystander")
	peak := runtime.NumGoroutine()
	for _, c := range live {
		c.Close()
	}
	live = nil
	t.Logf("figure: %d connections admitted (max_connections %d), excess closed with LIMIT_EXCEEDED", maxConns, maxConns)
	v.stillServes(t)
	v.settledAfter(t, peak)
}

// exchangeWorks runs one echo exchange on a raw connection and reports
// whether it completed.
func exchangeWorks(c *rawpeer.Conn) bool {
	s, err := c.Bidi(rawpeer.Data(echoPath, []byte("admitted?")), true)
	if err != nil {
		return false
	}
	kind, _, err := rawpeer.ReadFrame(s)
	if err != nil || kind != wire.KindData {
		return false
	}
	got, err := io.ReadAll(s)
	return err == nil && string(got) == "admitted?"
}

// await waits until cond holds. Frames like SUBSCRIBE have no answer, so
// the victim's counters are the only evidence they were applied; polling
// them is bounded and never decides a result by itself.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(settleWithin)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestLyingContentLength: DATA key 1, the sender's advisory payload length,
// sizes the receiver's buffer before the bytes arrive, so a peer stating
// 2^62 bytes and sending 4 KiB must not make the receiver allocate what it
// stated: under a ceiling of "no ceiling" (math.MaxInt64, which the C API
// passes for SIZE_MAX) Recv panicked (makeslice) or the process ran out of
// memory. Each receive gets the 4 KiB that came, and allocates far less
// than any of the stated lengths.
func TestLyingContentLength(t *testing.T) {
	v := newVictim(t, weida.Config{})
	c := dialWithHello(t, v)
	payload := bytes.Repeat([]byte("lie "), 1024) // above what arrives whole with the header
	for _, tc := range []struct {
		stated  uint64
		ceiling int64
		lend    bool
	}{
		{1 << 30, 1 << 30, false},
		{1 << 30, 1 << 30, true},
		{1 << 44, math.MaxInt64, false},
		{1 << 62, math.MaxInt64, false},
		{1 << 62, math.MaxInt64, true},
		{math.MaxUint64, math.MaxInt64, true},
	} {
		t.Run(fmt.Sprintf("stated=%d/lent=%v", tc.stated, tc.lend), func(t *testing.T) {
			frame := rawpeer.Encode(wire.KindData, &wire.Data{Endpoint: wire.Some(pullPath), ContentLen: wire.Some(tc.stated)})
			mustSend(t, c.Uni(rawpeer.Cat(frame, payload)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var got []byte
			var err error
			if tc.lend {
				got, _, err = v.pull.RecvAppend(ctxFor(t), make([]byte, 0, 16), tc.ceiling)
			} else {
				got, _, err = v.pull.Recv(ctxFor(t), tc.ceiling)
			}
			runtime.ReadMemStats(&after)
			if err != nil || !bytes.Equal(got, payload) {
				t.Fatalf("received %d bytes, %v; want the %d sent", len(got), err, len(payload))
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Fatalf("receiving 4 KiB that stated %d bytes allocated %d MiB", tc.stated, n>>20)
			}
		})
	}
	c.Close()
	v.stillServes(t)
	v.settled(t)
}
