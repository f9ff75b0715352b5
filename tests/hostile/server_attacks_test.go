package hostile

import (
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// serverAttack is what a hostile server does right after the handshake,
// the close code the weida client must answer with, and what Connect must
// return (nil: Connect may succeed, the attack may land after it).
type serverAttack struct {
	name       string
	streams    [][]byte // each on its own uni stream, finished, in order
	want       wire.AppCode
	connectErr error
}

func serverAttacks() []serverAttack {
	v, f := wire.CodeProtocolViolation, wire.CodeNegotiationFailed
	hello := func(edit func(*wire.Hello)) []byte {
		h := wire.DefaultHello()
		edit(&h)
		return rawpeer.Encode(wire.KindHello, &h)
	}
	out := []serverAttack{
		{name: "HELLO with an indefinite-length map", streams: [][]byte{rawpeer.Frame(wire.KindHello, []byte{0xBF, 0x01, 0x01, 0xFF})},
			want: v, connectErr: weida.ErrProtocol},
		{name: "no HELLO at all", want: f, connectErr: weida.ErrNegotiation},
		{name: "HELLO with no common version", streams: [][]byte{hello(func(h *wire.Hello) { h.Versions = []uint64{3} })},
			want: f, connectErr: weida.ErrNegotiation},
		{name: "HELLO requiring the datagram capability", streams: [][]byte{hello(func(h *wire.Hello) {
			h.Capabilities, h.RequiredCapabilities = []uint64{1}, []uint64{1}
		})}, want: f, connectErr: weida.ErrNegotiation},
		{name: "HELLO requiring reassembly", streams: [][]byte{hello(func(h *wire.Hello) {
			h.Offered.Ordering, h.Required.Ordering = 2, 2
		})}, want: f, connectErr: weida.ErrNegotiation},
		{name: "kind 8 before HELLO", streams: [][]byte{{0x57, 0x08, 0x00}}, want: v, connectErr: weida.ErrProtocol},
		{name: "bad magic before HELLO", streams: [][]byte{{0x00, 0x00, 0x00}}, want: v, connectErr: weida.ErrProtocol},
		{name: "second HELLO", streams: [][]byte{rawpeer.Hello(), rawpeer.Hello()}, want: v},
		{name: "ERROR on a uni stream", streams: [][]byte{rawpeer.Hello(), rawpeer.ErrorReply(wire.ErrorInternal)}, want: v},
		{name: "FLOW without agreed datagrams", streams: [][]byte{rawpeer.Hello(),
			rawpeer.Encode(wire.KindFlow, &wire.Flow{Endpoint: "/x", Flow: 1})}, want: v},
		{name: "DATA without endpoint", streams: [][]byte{rawpeer.Hello(), rawpeer.Reply([]byte("x"))}, want: v},
		{name: "header_len above the limit", streams: [][]byte{rawpeer.Hello(), {0x57, 0x01, 0x80, 0x10, 0x00, 0x00}}, want: v},
		{name: "FIN inside a header", streams: [][]byte{rawpeer.Hello(), {0x57, 0x03, 0x09, 0xA2, 0x00}}, want: v},
	}
	for _, h := range badHellos {
		out = append(out, serverAttack{name: h.name, streams: [][]byte{rawpeer.Frame(h.kind, h.header)},
			want: v, connectErr: weida.ErrProtocol})
	}
	return out
}

// TestClientRejectsHostileServer points a weida Requester at a raw server
// that misbehaves before or right after HELLO: the client closes with the
// exact code, Connect reports the matching kind, and the client's other
// connection (the bystander's) is untouched.
func TestClientRejectsHostileServer(t *testing.T) {
	cv := newClientVictim(t)
	for _, tc := range serverAttacks() {
		t.Run(tc.name, func(t *testing.T) {
			hs := startHostileServer(t, func(c *rawpeer.Conn) {
				for _, s := range tc.streams {
					if c.Uni(s) != nil {
						return
					}
				}
			})
			r := cv.rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
			defer r.Close()
			err := r.Connect(ctxFor(t), hs.url("/x"))
			if tc.connectErr != nil && !errors.Is(err, tc.connectErr) {
				t.Fatalf("connect: %v, want %v", err, tc.connectErr)
			}
			code, cerr := hs.next(t).ClosedWith(ctxFor(t))
			if cerr != nil {
				t.Fatal(cerr)
			}
			if code != tc.want {
				t.Fatalf("the client closed with %s, want %s", code, tc.want)
			}
			cv.stillServes(t)
		})
	}
	cv.settled(t)
}
