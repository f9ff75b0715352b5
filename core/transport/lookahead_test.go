package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// negotiatedRaw dials s with a bare quic-go connection and completes one
// exchange on it, so the server has certainly processed the HELLO: every
// bidi stream after it reads ahead.
func negotiatedRaw(t *testing.T, s *server) *quic.Conn {
	t.Helper()
	qc := rawDial(t, s)
	rawUni(t, qc, helloBytes())
	rawBidi(t, qc, dataFrame(wire.Data{Endpoint: wire.Some("/t")}))
	ex := nextExchange(t, s)
	ex.ReplyError(wire.ErrorNoReply)
	return qc
}

func dataFrame(h wire.Data) []byte { return wire.AppendFrame(nil, wire.KindData, &h) }

// rawBidi writes b on a new bidi stream and finishes it.
func rawBidi(t *testing.T, qc *quic.Conn, b []byte) {
	t.Helper()
	st, err := qc.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
}

func nextExchange(t *testing.T, s *server) *Exchange {
	t.Helper()
	select {
	case ex := <-s.h.exchanges:
		return ex
	case <-time.After(20 * time.Second):
		t.Fatal("no exchange arrived")
		return nil
	}
}

// longHeader is a DATA header longer than the lookahead buffer: the path
// and an unknown key (skipped by the decoder) holding n bytes.
func longHeader(n int) []byte {
	hdr := []byte{0xA2, 0x00, 0x62, '/', 't', 0x18, 0x63, 0x59, byte(n >> 8), byte(n)}
	hdr = append(hdr, bytes.Repeat([]byte{0xEE}, n)...)
	return append(wire.AppendPreamble(nil, wire.KindData, len(hdr)), hdr...)
}

// A request whose head and payload arrive together is read in one go, and
// the payload comes out of the request half exactly, whatever part of it
// the first read took.
func TestReadAheadDeliversThePayload(t *testing.T) {
	s := startServer(t, NewConfig())
	qc := negotiatedRaw(t, s)
	for _, tc := range []struct {
		name    string
		head    []byte
		payload []byte
	}{
		{"no payload", dataFrame(wire.Data{Endpoint: wire.Some("/t")}), nil},
		{"a payload that fits the inline room", dataFrame(wire.Data{Endpoint: wire.Some("/t")}), bytes.Repeat([]byte("i"), inlineWhole)},
		{"a payload just above the inline room", dataFrame(wire.Data{Endpoint: wire.Some("/t")}), bytes.Repeat([]byte("j"), inlineWhole+1)},
		{"a payload within the first read", dataFrame(wire.Data{Endpoint: wire.Some("/t")}), bytes.Repeat([]byte("a"), 1000)},
		{"a payload beyond the first read", dataFrame(wire.Data{Endpoint: wire.Some("/t")}), bytes.Repeat([]byte("b"), 3*lookaheadLen)},
		{"a header beyond the first read", longHeader(3000), []byte("after a long header")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rawBidi(t, qc, append(append([]byte(nil), tc.head...), tc.payload...))
			ex := nextExchange(t, s)
			defer ex.ReplyError(wire.ErrorNoReply)
			if ep := ex.In.Header.Endpoint; !ep.Ok || ep.V != "/t" {
				t.Fatalf("endpoint %+v, want /t", ep)
			}
			got, err := io.ReadAll(ex.In)
			if err != nil || !bytes.Equal(got, tc.payload) {
				t.Fatalf("read %d bytes (%v), want the %d sent", len(got), err, len(tc.payload))
			}
			if !ex.In.AtEOF() {
				t.Fatal("AtEOF is false after the payload's end")
			}
		})
	}
}

// A small whole payload is copied out of the pooled read buffer when its
// header is decoded, so a transfer waiting to be read pins no 2 KiB buffer,
// and it still reads out exactly, in pieces as well as whole.
func TestReadAheadSmallWholePayloadHoldsNoBuffer(t *testing.T) {
	s := startServer(t, NewConfig())
	qc := negotiatedRaw(t, s)
	payload := []byte("a small payload, read seven bytes at a time")
	rawBidi(t, qc, append(dataFrame(wire.Data{Endpoint: wire.Some("/t")}), payload...))
	ex := nextExchange(t, s)
	defer ex.ReplyError(wire.ErrorNoReply)
	if ex.In.aheadBuf != nil {
		t.Fatal("a whole payload of a few bytes still holds its pooled read buffer")
	}
	var got []byte
	buf := make([]byte, 7)
	for {
		n, err := ex.In.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	}
	if !bytes.Equal(got, payload) || !ex.In.AtEOF() {
		t.Fatalf("read %q (at EOF: %v), want %q", got, ex.In.AtEOF(), payload)
	}
}

// A request half refused after its payload was read ahead hands out none
// of it: the reader sees Canceled, as quic-go would answer a canceled read.
func TestReadAheadRefusedHandsOutNothing(t *testing.T) {
	s := startServer(t, NewConfig())
	qc := negotiatedRaw(t, s)
	rawBidi(t, qc, append(dataFrame(wire.Data{Endpoint: wire.Some("/t")}), "held back"...))
	ex := nextExchange(t, s)
	defer ex.ReplyError(wire.ErrorRejected)
	ex.In.Refuse(wire.CodeRejected)
	n, err := ex.In.Read(make([]byte, 64))
	if n != 0 || !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("read after Refuse: %d bytes, %v; want none and Canceled", n, err)
	}
}

// A malformed head is judged on the read-ahead path as on the other one.
func TestReadAheadViolationsClose(t *testing.T) {
	s := startServer(t, NewConfig())
	for _, tc := range []struct {
		name string
		bidi []byte
	}{
		{"bad magic", []byte{0x58, 0x01, 0x00}},
		{"FIN inside the preamble", []byte{0x57}},
		{"FIN inside the header", []byte{0x57, 0x01, 0x05, 0xA1, 0x00}},
		{"FIN inside a header beyond the first read", longHeader(3000)[:2500]},
		{"header_len above the limit", []byte{0x57, 0x01, 0x80, 0x10, 0x00, 0x00}},
		{"ERROR opening a bidi stream", []byte{0x57, 0x02, 0x03, 0xA1, 0x00, 0x05}},
		{"DATA without endpoint", dataFrame(wire.Data{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qc := negotiatedRaw(t, s)
			rawBidi(t, qc, tc.bidi)
			if code := closeCode(t, qc); code != wire.CodeProtocolViolation {
				t.Fatalf("close code %s, want PROTOCOL_VIOLATION", code)
			}
		})
	}
}
