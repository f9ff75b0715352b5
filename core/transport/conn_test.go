package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

func TestHelloNegotiatesCore(t *testing.T) {
	check := goroutineBaseline(t)
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	a := c.Agreed()
	if a.Version != 0 || a.Guarantees != wire.CoreGuarantees() || a.Datagrams {
		t.Fatalf("agreed %+v, want v0 core without datagrams", a)
	}
	if a.SendMaxHeaderBytes != wire.DefaultMaxHeaderBytes {
		t.Fatalf("send_max_header_bytes %d", a.SendMaxHeaderBytes)
	}
	c.Close(wire.CodeNoError, "")
	s.l.Close(wire.CodeShutdown, "")
	check()
}

func TestNegotiationFailureNamesTheDimension(t *testing.T) {
	s := startServer(t, NewConfig())
	cfg := NewConfig()
	cfg.Offered.Ordering, cfg.Required.Ordering = 1, 1
	_, err := Dial(testContext(t), s.address(s.l.Addr(), "/t"), identity.TrustByAddress(), nil, cfg, newRecorder())
	if !errors.Is(err, errs.ErrNegotiation) {
		t.Fatalf("dial: %v, want Negotiation", err)
	}
	if !strings.Contains(err.Error(), "ordering") {
		t.Fatalf("error %q does not name the dimension", err)
	}
	select {
	case serverErr := <-s.h.closed:
		if !errors.Is(serverErr, errs.ErrNegotiation) {
			t.Fatalf("server side ended with %v, want Negotiation", serverErr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the connection end")
	}
}

func TestUntrustedNamesTheKeyThatAnswered(t *testing.T) {
	s := startServer(t, NewConfig())
	addr := s.address(s.l.Addr(), "/t")
	addr.Fingerprint = identity.Fingerprint{1, 2, 3}
	_, err := Dial(testContext(t), addr, identity.TrustByAddress(), nil, NewConfig(), newRecorder())
	if !errors.Is(err, errs.ErrUntrusted) {
		t.Fatalf("dial: %v, want Untrusted", err)
	}
	if !strings.Contains(err.Error(), s.id.Fingerprint().String()) {
		t.Fatalf("error %q does not name the key %s", err, s.id.Fingerprint())
	}
}

func TestExchangeRoundTrip(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	out, reply, err := c.OpenBi(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		ex := <-s.h.exchanges
		body, _ := io.ReadAll(ex.In)
		o, err := ex.Reply(&wire.Data{})
		if err != nil {
			return
		}
		_, _ = o.Write(bytes.ToUpper(body))
		_, _ = o.Finish()
	}()
	if _, err := out.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	r, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	in, err := reply.Recv(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(in)
	if err != nil || string(got) != "PING" {
		t.Fatalf("reply %q, %v", got, err)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("request receipt: %v", err)
	}
}

func TestRefusalsByCode(t *testing.T) {
	s := startServer(t, NewConfig())
	s.h.refuse.Store(true)
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/nowhere")}

	out, reply, err := c.OpenBi(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Finish()
	if _, err := reply.Recv(testContext(t)); !errors.Is(err, errs.ErrUnknownEndpoint) {
		t.Fatalf("exchange to an unknown path: %v, want UnknownEndpoint", err)
	}

	// Beyond the stream window the one-way refusal is certain (PROTOCOL.md §11.2).
	uni, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 4<<20)
	_, werr := uni.Write(payload)
	if werr == nil {
		r, ferr := uni.Finish()
		if ferr == nil {
			werr = r.Err()
		} else {
			werr = ferr
		}
	}
	if !errors.Is(werr, errs.ErrUnknownEndpoint) {
		t.Fatalf("one-way beyond the window: %v, want UnknownEndpoint", werr)
	}
}

func TestMaxConnections(t *testing.T) {
	cfg := NewConfig()
	cfg.MaxConnections = 1
	s := startServer(t, cfg)
	dialServer(t, s, s.l.Addr(), NewConfig())
	_, err := Dial(testContext(t), s.address(s.l.Addr(), "/t"), identity.TrustByAddress(), nil, NewConfig(), newRecorder())
	if !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("second connection: %v, want LimitExceeded", err)
	}
}

func TestHelloTimeoutClosesNegotiationFailed(t *testing.T) {
	cfg := NewConfig()
	cfg.Limits.HelloTimeout = 200 * time.Millisecond
	s := startServer(t, cfg)
	qc := rawDial(t, s)
	if code := closeCode(t, qc); code != wire.CodeNegotiationFailed {
		t.Fatalf("close code %s, want NEGOTIATION_FAILED", code)
	}
}

func TestStreamBeforeHelloIsParked(t *testing.T) {
	s := startServer(t, NewConfig())
	qc := rawDial(t, s)
	h := wire.Data{Endpoint: wire.Some("/t")}
	rawUni(t, qc, append(wire.AppendFrame(nil, wire.KindData, &h), "early"...))
	select {
	case <-s.h.data:
		t.Fatal("a transfer was dispatched before negotiation")
	default:
	}
	rawUni(t, qc, helloBytes())
	select {
	case in := <-s.h.data:
		got, _ := io.ReadAll(in)
		if string(got) != "early" {
			t.Fatalf("payload %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the parked stream was never dispatched")
	}
}

// TestViolationsClose sends each malformed input of PROTOCOL.md §14.1 after
// a valid HELLO and expects PROTOCOL_VIOLATION.
func TestViolationsClose(t *testing.T) {
	data := func(h wire.Data) []byte { return wire.AppendFrame(nil, wire.KindData, &h) }
	sub := wire.Subscribe{Endpoint: "/t", Filter: "a"}
	cases := []struct {
		name string
		uni  []byte
		bidi []byte
	}{
		{"bad magic", []byte{0x58, 0x01, 0x00}, nil},
		{"unknown kind", []byte{0x57, 0x08, 0x00}, nil},
		{"header_len above the limit", []byte{0x57, 0x01, 0x80, 0x10, 0x00, 0x00}, nil},
		{"FIN inside the preamble", []byte{0x57}, nil},
		{"FIN inside the header", []byte{0x57, 0x01, 0x05, 0xA1, 0x00}, nil},
		{"DATA without endpoint", data(wire.Data{}), nil},
		{"ERROR on a uni stream", []byte{0x57, 0x02, 0x03, 0xA1, 0x00, 0x05}, nil},
		{"second HELLO", helloBytes(), nil},
		{"bad CBOR", []byte{0x57, 0x01, 0x04, 0xBF, 0x01, 0x01, 0xFF}, nil},
		{"bad filter", []byte{0x57, 0x03, 0x0A, 0xA2, 0x00, 0x62, 0x2F, 0x74, 0x01, 0x63, 0x70, 0x78, 0x2A}, nil},
		{"SUBSCRIBE opening a bidi stream", nil, wire.AppendFrame(nil, wire.KindSubscribe, &sub)},
	}
	s := startServer(t, NewConfig())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qc := rawDial(t, s)
			rawUni(t, qc, helloBytes())
			if tc.uni != nil {
				rawUni(t, qc, tc.uni)
			} else {
				st, err := qc.OpenStream()
				if err != nil {
					t.Fatal(err)
				}
				_, _ = st.Write(tc.bidi)
				_ = st.Close()
			}
			if code := closeCode(t, qc); code != wire.CodeProtocolViolation {
				t.Fatalf("close code %s, want PROTOCOL_VIOLATION", code)
			}
		})
	}
	// The listener keeps serving other peers.
	dialServer(t, s, s.l.Addr(), NewConfig())
}
