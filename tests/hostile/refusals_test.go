package hostile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// refusal is a stream the victim must refuse with a stop code while the
// connection lives on (PROTOCOL.md §8.6.2 rule 3, §11.3, §11.4).
type refusal struct {
	name      string
	frame     []byte // preamble, header and payload, left unfinished so the stop stays observable
	bidi      bool
	wantError uint64 // the ERROR code the reply half carries (bidi only)
	want      wire.AppCode
}

func refusals() []refusal {
	payload := []byte("hostile payload")
	cursor := func(id uint64, records ...byte) []byte {
		return append(rawpeer.Encode(wire.KindCursor, &wire.CursorHead{ReportID: id}), records...)
	}
	return []refusal{
		{name: "DATA to an unknown path", frame: rawpeer.Data("/nowhere", payload), want: wire.CodeUnknownEndpoint},
		{name: "DATA to a replier", frame: rawpeer.Data(echoPath, payload), want: wire.CodeUnsupported},
		{name: "DATA to a publisher", frame: rawpeer.Data(pubPath, payload), want: wire.CodeUnsupported},
		{name: "exchange with an unknown path", bidi: true, frame: rawpeer.Data("/nowhere", payload),
			wantError: wire.ErrorUnknownEndpoint, want: wire.CodeUnknownEndpoint},
		{name: "exchange with a puller", bidi: true, frame: rawpeer.Data(pullPath, payload),
			wantError: wire.ErrorUnsupported, want: wire.CodeUnsupported},
		{name: "exchange with a publisher", bidi: true, frame: rawpeer.Data(pubPath, payload),
			wantError: wire.ErrorUnsupported, want: wire.CodeUnsupported},
		{name: "CURSOR for report_id 7, never handed out", frame: cursor(7, 0x01, 0x05), want: wire.CodeCanceled},
		{name: "CURSOR for report_id 0, never allocated", frame: cursor(0), want: wire.CodeCanceled},
		{name: "CURSOR for report_id 2^62-1", frame: cursor(wire.MaxVarint, 0x05, 0x40, 0x40), want: wire.CodeCanceled},
		{name: "SUBSCRIBE with a 8 KiB trailer", frame: append(filterHeader(wire.KindSubscribe, "trailer"), make([]byte, 8<<10)...),
			want: wire.CodeNoError},
	}
}

// TestServerRefusesStreamsKeepingTheConnection sends each refusal on one
// raw connection and expects the exact stop code (and ERROR code on an
// exchange); the connection must survive them all and still carry an
// exchange, and the victim refuses without allocating per refused stream.
func TestServerRefusesStreamsKeepingTheConnection(t *testing.T) {
	v := newVictim(t, weida.Config{})
	c := dialWithHello(t, v)
	for _, tc := range refusals() {
		t.Run(tc.name, func(t *testing.T) {
			var stream interface{ Context() context.Context }
			if tc.bidi {
				s, err := c.Bidi(tc.frame, false)
				mustSend(t, err)
				if code := readErrorReply(t, s); code != tc.wantError {
					t.Fatalf("reply half carried ERROR %d, want %d", code, tc.wantError)
				}
				stream = s
			} else {
				s, err := c.UniOpen(tc.frame)
				mustSend(t, err)
				stream = s
			}
			code, err := rawpeer.StopCode(ctxFor(t), stream)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("stopped with %s, want %s", code, tc.want)
			}
		})
	}
	if !c.Alive() {
		t.Fatal("the refusals closed the connection")
	}
	// Each CURSOR naming a report id nobody handed out was counted.
	if n := v.rt.StrayReports(); n != 3 {
		t.Fatalf("StrayReports() = %d after three CURSORs for ids never handed out, want 3", n)
	}
	rawExchange(t, c, []byte("after the refusals"))
	v.stillServes(t)
	c.Close()
	v.settled(t)
}

// readErrorReply reads a reply half that must be one ERROR frame and FIN.
func readErrorReply(t *testing.T, s *quic.Stream) uint64 {
	t.Helper()
	kind, hdr, err := rawpeer.ReadFrame(s)
	if err != nil {
		t.Fatalf("reading the reply half: %v", err)
	}
	if kind != wire.KindError {
		t.Fatalf("reply half carried %s, want ERROR", kind)
	}
	f, err := wire.DecodeError(hdr)
	if err != nil {
		t.Fatalf("the victim wrote a bad ERROR header: %v", err)
	}
	if rest, err := io.ReadAll(s); err != nil || len(rest) != 0 {
		t.Fatalf("after the ERROR header: %d bytes, %v; want FIN", len(rest), err)
	}
	return f.Code
}

// rawExchange runs one exchange with the victim's echo replier over the
// raw connection, proving the connection still works.
func rawExchange(t *testing.T, c *rawpeer.Conn, payload []byte) {
	t.Helper()
	s, err := c.Bidi(rawpeer.Data(echoPath, payload), true)
	if err != nil {
		t.Fatal(err)
	}
	kind, _, err := rawpeer.ReadFrame(s)
	if err != nil || kind != wire.KindData {
		t.Fatalf("echo reply: %s, %v", kind, err)
	}
	got, err := io.ReadAll(s)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("echo reply %q, %v; want %q", got, err, payload)
	}
}

// dialWithHello is a raw connection to the victim that sent a valid HELLO.
func dialWithHello(t *testing.T, v *victim) *rawpeer.Conn {
	t.Helper()
	c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	mustSend(t, c.Uni(rawpeer.Hello()))
	return c
}

// pullHeader is {0: "/pull"} followed by the pairs in rest (ascending keys
// above 0), under a map head counting them.
func pullHeader(pairs byte, rest ...byte) []byte {
	return append([]byte{0xA0 | (pairs + 1), 0x00, 0x65, '/', 'p', 'u', 'l', 'l'}, rest...)
}

// TestServerAcceptsEdgeCases sends the inputs PROTOCOL.md §14.3 and the
// accepted edge cases of §15.3 say are not errors: each transfer must reach
// the puller intact, and the connection must survive.
func TestServerAcceptsEdgeCases(t *testing.T) {
	pad := 16384 - len(pullHeader(1, 0x18, 0x3F, 0x59, 0x00, 0x00))
	cases := []struct {
		name  string
		frame []byte // preamble and header; the payload follows
	}{
		{"unknown key 63 holding a nested value", rawpeer.Frame(wire.KindData, pullHeader(1, 0x18, 0x3F, 0x82, 0x07, 0xA1, 0x01, 0xF5))},
		{"unknown key 1000", rawpeer.Frame(wire.KindData, pullHeader(1, 0x19, 0x03, 0xE8, 0x66, 'f', 'u', 't', 'u', 'r', 'e'))},
		{"skipped value nested exactly 8 deep", rawpeer.Frame(wire.KindData,
			pullHeader(1, rawpeer.Cat([]byte{0x18, 0x32}, rawpeer.Repeat([]byte{0x81}, 8), []byte{0x01})...))},
		{"header_len in the 8-byte varint form", rawpeer.Cat([]byte{0x57, 0x01, 0xC0, 0, 0, 0, 0, 0, 0, 0x08}, pullHeader(0))},
		{"header of exactly 16384 bytes", rawpeer.Frame(wire.KindData,
			rawpeer.Cat(pullHeader(1, 0x18, 0x3F, 0x59, byte(pad>>8), byte(pad)), make([]byte, pad)))},
		{"non-minimal CBOR lengths and integers", rawpeer.Frame(wire.KindData,
			[]byte{0xA2, 0x00, 0x78, 0x05, '/', 'p', 'u', 'l', 'l', 0x01, 0x1B, 0, 0, 0, 0, 0, 0, 0, 0x05})},
		{"explicit layer 0 without a segment", rawpeer.Frame(wire.KindData, pullHeader(1, 0x0E, 0x00))},
		{"empty report without report_id", rawpeer.Frame(wire.KindData, pullHeader(1, 0x0A, 0x80))},
		{"report_mode without a report", rawpeer.Frame(wire.KindData, pullHeader(1, 0x0B, 0x01))},
		{"achieved on an initiating stream", rawpeer.Frame(wire.KindData, pullHeader(1, 0x08, 0x02))},
		{"malformed traceparent", rawpeer.Frame(wire.KindData, pullHeader(1, 0x03, 0x63, 'b', 'a', 'd'))},
		{"content_len that disagrees with the payload", rawpeer.Frame(wire.KindData, pullHeader(1, 0x01, 0x1A, 0xFF, 0xFF, 0xFF, 0xFF))},
	}
	v := newVictim(t, weida.Config{})
	c := dialWithHello(t, v)
	// Inputs that are not errors and deliver nothing (§14.3): CREDIT to a
	// path without a queue, UNSUBSCRIBE of an unknown filter, SUBSCRIBE
	// where nothing publishes.
	for _, frame := range [][]byte{
		filterHeader(wire.KindCredit, ""),
		filterHeader(wire.KindUnsubscribe, "x"),
		rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: "/not-yet", Filter: ""}),
	} {
		mustSend(t, c.Uni(frame))
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := []byte{byte(i), 'e', 'd', 'g', 'e'}
			mustSend(t, c.Uni(append(tc.frame, payload...)))
			got, meta, err := v.pull.Recv(ctxFor(t), 1<<10)
			if err != nil {
				t.Fatalf("the transfer was not delivered: %v", err)
			}
			if ep, _ := meta.Endpoint(); ep != pullPath || !bytes.Equal(got, payload) {
				t.Fatalf("delivered %q at %q, want %q at %q", got, ep, payload, pullPath)
			}
		})
	}
	if !c.Alive() {
		t.Fatal("an accepted input closed the connection")
	}
	v.stillServes(t)
}

// TestServerRefusesAboveTheCeiling: a payload above the receiver's ceiling
// is refused with STOP_SENDING(REJECTED) and nothing is kept.
func TestServerRefusesAboveTheCeiling(t *testing.T) {
	v := newVictim(t, weida.Config{})
	c := dialWithHello(t, v)
	s, err := c.UniOpen(rawpeer.Data(pullPath, make([]byte, 64<<10)))
	mustSend(t, err)
	if _, _, err := v.pull.Recv(ctxFor(t), 1<<10); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("recv above the ceiling: %v, want LimitExceeded", err)
	}
	code, err := rawpeer.StopCode(ctxFor(t), s)
	if err != nil {
		t.Fatal(err)
	}
	if code != wire.CodeRejected {
		t.Fatalf("stopped with %s, want REJECTED", code)
	}
	rawExchange(t, c, []byte("after the refusal"))
}
