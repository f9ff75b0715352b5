package hostile

import (
	"fmt"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/resources"
)

// attack is one hostile input against a server victim and the close code
// it must draw.
type attack struct {
	name    string
	noHello bool     // send nothing before the streams (the input is the first HELLO, or no HELLO at all)
	uni     [][]byte // each on its own uni stream, finished
	bidi    []byte   // on one bidi stream, finished
	want    wire.AppCode
}

// preambleAttacks are the preamble errors of PROTOCOL.md §5.4.
func preambleAttacks() []attack {
	v := wire.CodeProtocolViolation
	return []attack{
		{name: "bad magic", uni: [][]byte{{0x58, 0x01, 0x00}}, want: v},
		{name: "bad magic on a bidi stream", bidi: []byte{0x58, 0x01, 0x00}, want: v},
		{name: "kind 8", uni: [][]byte{{0x57, 0x08, 0x00}}, want: v},
		{name: "kind 255", uni: [][]byte{{0x57, 0xFF, 0x00}}, want: v},
		{name: "header_len 1048576", uni: [][]byte{{0x57, 0x01, 0x80, 0x10, 0x00, 0x00}}, want: v},
		{name: "header_len 16385, one above the limit", uni: [][]byte{{0x57, 0x01, 0x80, 0x00, 0x40, 0x01}}, want: v},
		{name: "header_len 2^62-1", uni: [][]byte{{0x57, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}}, want: v},
		{name: "header_len above the limit on a bidi stream", bidi: []byte{0x57, 0x01, 0x80, 0x10, 0x00, 0x00}, want: v},
		{name: "FIN after the magic", uni: [][]byte{{0x57}}, want: v},
		{name: "FIN after the kind", uni: [][]byte{{0x57, 0x01}}, want: v},
		{name: "FIN inside the varint", uni: [][]byte{{0x57, 0x01, 0x80, 0x00}}, want: v},
		{name: "FIN inside the header", uni: [][]byte{{0x57, 0x01, 0x05, 0xA1, 0x00}}, want: v},
		{name: "FIN inside the header of a bidi stream", bidi: []byte{0x57, 0x01, 0x05, 0xA1, 0x00}, want: v},
		{name: "empty stream", uni: [][]byte{{}}, want: v},
		{name: "kind 8 before HELLO", noHello: true, uni: [][]byte{{0x57, 0x08, 0x00}}, want: v},
	}
}

// placementAttacks put frames where PROTOCOL.md §6.1 forbids them.
func placementAttacks() []attack {
	v := wire.CodeProtocolViolation
	sub := rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: pubPath, Filter: "a"})
	out := []attack{
		{name: "ERROR on a uni stream", uni: [][]byte{rawpeer.ErrorReply(wire.ErrorRejected)}, want: v},
		{name: "FLOW without agreed datagrams", uni: [][]byte{rawpeer.Encode(wire.KindFlow, &wire.Flow{Endpoint: pullPath, Flow: 1})}, want: v},
		{name: "second HELLO", uni: [][]byte{rawpeer.Hello()}, want: v},
		{name: "DATA without endpoint", uni: [][]byte{rawpeer.Reply([]byte("x"))}, want: v},
		{name: "DATA without endpoint on a bidi stream", bidi: rawpeer.Reply([]byte("x")), want: v},
	}
	for _, f := range []struct {
		kind  wire.Kind
		frame []byte
	}{
		{wire.KindHello, rawpeer.Hello()},
		{wire.KindError, rawpeer.ErrorReply(wire.ErrorNoReply)},
		{wire.KindSubscribe, sub},
		{wire.KindUnsubscribe, rawpeer.Encode(wire.KindUnsubscribe, &wire.Subscribe{Endpoint: pubPath, Filter: "a"})},
		{wire.KindCredit, rawpeer.Encode(wire.KindCredit, &wire.Credit{Endpoint: pubPath, Limit: 1})},
		{wire.KindCursor, rawpeer.Encode(wire.KindCursor, &wire.CursorHead{ReportID: 1})},
		{wire.KindFlow, rawpeer.Encode(wire.KindFlow, &wire.Flow{Endpoint: pullPath, Flow: 1})},
	} {
		out = append(out, attack{name: f.kind.String() + " opening a bidi stream", bidi: f.frame, want: v})
	}
	return out
}

// decoderAttacks send every negative header, each as its kind on a uni
// stream; DATA headers also open a bidi stream.
func decoderAttacks() []attack {
	v := wire.CodeProtocolViolation
	var out []attack
	for _, h := range negativeHeaders {
		frame := rawpeer.Frame(h.kind, h.header)
		out = append(out, attack{name: h.name, uni: [][]byte{frame}, want: v})
		if h.kind == wire.KindData {
			out = append(out, attack{name: h.name + " on a bidi stream", bidi: frame, want: v})
		}
	}
	for _, f := range badFilters {
		for _, kind := range []wire.Kind{wire.KindSubscribe, wire.KindUnsubscribe, wire.KindCredit} {
			out = append(out, attack{name: fmt.Sprintf("%s filter %q", kind, f), uni: [][]byte{filterHeader(kind, f)}, want: v})
		}
	}
	for _, h := range badHellos {
		out = append(out, attack{name: h.name, noHello: true, uni: [][]byte{rawpeer.Frame(h.kind, h.header)}, want: v})
	}
	return out
}

// negotiationAttacks are HELLOs that decode but cannot be agreed (§9.1).
func negotiationAttacks() []attack {
	f := wire.CodeNegotiationFailed
	hello := func(edit func(*wire.Hello)) [][]byte {
		h := wire.DefaultHello()
		edit(&h)
		return [][]byte{rawpeer.Encode(wire.KindHello, &h)}
	}
	return []attack{
		{name: "HELLO with no common version", noHello: true, uni: hello(func(h *wire.Hello) { h.Versions = []uint64{1} }), want: f},
		{name: "HELLO with an empty versions list", noHello: true, uni: hello(func(h *wire.Hello) { h.Versions = []uint64{} }), want: f},
		{name: "HELLO requiring the datagram capability", noHello: true, uni: hello(func(h *wire.Hello) {
			h.Capabilities, h.RequiredCapabilities = []uint64{1}, []uint64{1}
		}), want: f},
		{name: "HELLO requiring ordering the victim does not offer", noHello: true, uni: hello(func(h *wire.Hello) {
			h.Offered.Ordering, h.Required.Ordering = 1, 1
		}), want: f},
		{name: "HELLO offering another backpressure", noHello: true, uni: hello(func(h *wire.Hello) {
			h.Offered.Backpressure, h.Required.Backpressure = 2, 2
		}), want: f},
	}
}

// TestServerRejectsMalformedInput sends every malformed input class to a
// weida listener, each on a fresh raw connection, and expects the exact
// close code; the bystander stays served on its original connection
// throughout, and the victim's goroutines and heap come back afterwards.
func TestServerRejectsMalformedInput(t *testing.T) {
	v := newVictim(t, weida.Config{})
	var cases []attack
	for _, group := range [][]attack{preambleAttacks(), placementAttacks(), decoderAttacks(), negotiationAttacks()} {
		cases = append(cases, group...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if !tc.noHello {
				mustSend(t, c.Uni(rawpeer.Hello()))
			}
			for _, b := range tc.uni {
				mustSend(t, c.Uni(b))
			}
			if tc.bidi != nil {
				_, err := c.Bidi(tc.bidi, true)
				mustSend(t, err)
			}
			code, err := c.ClosedWith(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("closed with %s, want %s", code, tc.want)
			}
			if n := v.bystander.PeerCount(); n != 1 {
				t.Fatalf("the bystander lost its connection (%d live)", n)
			}
		})
	}
	v.stillServes(t)
	v.settled(t)
	t.Logf("figure: %d malformed inputs, each closed with its exact code; heap growth after settling %s",
		len(cases), resources.MiB(v.base.HeapGrowth()))
}

// TestHelloTimeout: a peer that never sends HELLO is closed with
// NEGOTIATION_FAILED when the hello timeout passes, with its parked
// streams (preambles only) released.
func TestHelloTimeout(t *testing.T) {
	v := newVictim(t, weida.Config{Limits: weida.Limits{HelloTimeout: 300 * time.Millisecond}})
	c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 100 {
		// Parked: DATA before HELLO is not a violation (§3.2).
		mustSend(t, c.Uni(rawpeer.Data(pullPath, []byte("early"))))
	}
	code, err := c.ClosedWith(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if code != wire.CodeNegotiationFailed {
		t.Fatalf("closed with %s, want NEGOTIATION_FAILED", code)
	}
	v.stillServes(t)
	v.settled(t)
}

// mustSend fails the test when the raw peer could not put its bytes out.
// A victim that closes quickly may make a later write fail; callers send
// the attack's first bytes only, so any failure here is the harness's.
func mustSend(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("sending the attack: %v", err)
	}
}
