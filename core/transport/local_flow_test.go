package transport

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// datagramsConfig is NewConfig with datagram flows on.
func datagramsConfig() Config {
	cfg := NewConfig()
	cfg.DatagramReceiveBytes = DefaultDatagramReceiveBytes
	return cfg
}

// listenLocalFlows binds a local listener of kind whose handler takes
// flows, with datagrams on, and returns the address that dials it.
func listenLocalFlows(t *testing.T, kind string) (identity.Address, *flowRecorder) {
	t.Helper()
	h := &flowRecorder{recorder: newRecorder(), flows: make(chan *InFlow, MaxFlows+1)}
	var l *Listener
	var addr identity.Address
	var err error
	switch kind {
	case "inproc":
		bus := fmt.Sprintf("flow-test-%d", testBusSeq.Add(1))
		l, err = ListenInproc(bus, datagramsConfig(), h)
		addr = identity.Address{Scheme: identity.SchemeInproc, Bus: bus, Path: "/t"}
	case "unix":
		dir, derr := filepath.Abs(t.TempDir())
		if derr != nil {
			t.Fatal(derr)
		}
		path := filepath.Join(dir, "s.sock")
		l, err = ListenUnix(path, datagramsConfig(), h)
		addr = identity.Address{Scheme: identity.SchemeUnix, SocketPath: path, Path: "/t"}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	return addr, h
}

// forEachLocalFlow runs body over each local transport with a flow-taking
// server and a dialled connection, both with datagrams on.
func forEachLocalFlow(t *testing.T, body func(t *testing.T, c *Conn, h *flowRecorder)) {
	for _, k := range localKinds {
		t.Run(k.name, func(t *testing.T) {
			addr, h := listenLocalFlows(t, k.name)
			s := &localServer{addr: addr}
			c, err := dialLocal(t, s, datagramsConfig(), newRecorder())
			if err != nil {
				t.Fatal(err)
			}
			body(t, c, h)
		})
	}
}

// takeFlow waits for the server's next flow.
func takeFlow(t *testing.T, h *flowRecorder) *InFlow {
	t.Helper()
	select {
	case f := <-h.flows:
		return f
	case <-testContext(t).Done():
		t.Fatal("no flow arrived")
		return nil
	}
}

// TestLocalFlowCarriesRecords: datagrams ride the FLOW stream as records,
// up to LOCAL_MAX_DATAGRAM; a larger one is TooLarge{1200} at the sender;
// Close ends the flow in order, its FIN behind the records already sent.
func TestLocalFlowCarriesRecords(t *testing.T) {
	forEachLocalFlow(t, func(t *testing.T, c *Conn, h *flowRecorder) {
		if !c.DatagramsAgreed() || c.MaxDatagramPayload() != LocalMaxDatagram {
			t.Fatalf("agreed %v, max %d: want datagrams of up to %d", c.DatagramsAgreed(), c.MaxDatagramPayload(), LocalMaxDatagram)
		}
		f, err := c.OpenFlow(testContext(t), wire.Flow{Endpoint: "/t"})
		if err != nil {
			t.Fatal(err)
		}
		payloads := [][]byte{[]byte("one"), {}, make([]byte, LocalMaxDatagram)}
		for _, p := range payloads {
			if err := f.Send(p); err != nil {
				t.Fatalf("send %d bytes: %v", len(p), err)
			}
		}
		err = f.Send(make([]byte, LocalMaxDatagram+1))
		var tooLarge *DatagramTooLarge
		if !errors.Is(err, errs.ErrTooLarge) || !errors.As(err, &tooLarge) || tooLarge.Max != LocalMaxDatagram {
			t.Fatalf("a %d-byte datagram: %v, want TooLarge{%d}", LocalMaxDatagram+1, err, LocalMaxDatagram)
		}
		// Close queues the FIN behind the records: they arrive first.
		f.Close()
		if err := f.Send([]byte("late")); !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("send after Close: %v, want Canceled", err)
		}
		in := takeFlow(t, h)
		for _, want := range payloads {
			got, err := in.Recv(testContext(t))
			if err != nil || len(got) != len(want) {
				t.Fatalf("received %d bytes (%v), want %d", len(got), err, len(want))
			}
		}
		if _, err := in.Recv(testContext(t)); err != io.EOF {
			t.Fatalf("after the FIN: %v, want io.EOF", err)
		}
		if f.Sent() != uint64(len(payloads)) || f.Dropped() != 0 || in.Received() != uint64(len(payloads)) {
			t.Fatalf("sent %d dropped %d received %d", f.Sent(), f.Dropped(), in.Received())
		}
	})
}

// TestLocalFlowRecordFraming: records may straddle writes (and so pipe
// chunks); a record longer than LOCAL_MAX_DATAGRAM or cut by the FIN
// closes the connection with PROTOCOL_VIOLATION.
func TestLocalFlowRecordFraming(t *testing.T) {
	long := wire.AppendVarint(nil, LocalMaxDatagram+1)
	cases := []struct {
		name      string
		writes    [][]byte // after the FLOW header, each its own write
		want      []string // datagrams delivered
		violation bool
	}{
		{"straddling writes", [][]byte{{0x40}, {0x03, 'a'}, {'b', 'c', 0x01}, {'d'}}, []string{"abc", "d"}, false},
		{"longer than 1200", [][]byte{long}, nil, true},
		{"FIN inside a record", [][]byte{{0x05, 'a', 'b'}}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachLocalFlow(t, func(t *testing.T, c *Conn, h *flowRecorder) {
				s, err := c.local.open(testContext(t), false)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Write(wire.AppendFrame(nil, wire.KindFlow, &wire.Flow{Endpoint: "/t"})); err != nil {
					t.Fatal(err)
				}
				in := takeFlow(t, h)
				for _, w := range tc.writes {
					if _, err := s.Write(w); err != nil {
						t.Fatal(err)
					}
				}
				_ = s.Close()
				for _, want := range tc.want {
					if got, err := in.Recv(testContext(t)); err != nil || string(got) != want {
						t.Fatalf("received %q (%v), want %q", got, err, want)
					}
				}
				if !tc.violation {
					if _, err := in.Recv(testContext(t)); err != io.EOF {
						t.Fatalf("after the FIN: %v, want io.EOF", err)
					}
					return
				}
				select {
				case err := <-h.closed:
					if !errors.Is(err, errs.ErrProtocol) {
						t.Fatalf("the server's connection ended with %v, want Protocol", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("a bad record did not close the connection")
				}
			})
		})
	}
}

// TestLocalFlowNeedsTheCapabilityOnBothEnds: on a local transport HELLO's
// datagram capability decides, as over QUIC; without it on either end a
// flow is DatagramsUnavailable.
func TestLocalFlowNeedsTheCapabilityOnBothEnds(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s := start(t, NewConfig()) // datagrams off
		c, err := dialLocal(t, s, datagramsConfig(), newRecorder())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.OpenFlow(testContext(t), wire.Flow{Endpoint: "/t"}); !errors.Is(err, errs.ErrDatagramsUnavailable) {
			t.Fatalf("open toward a side without datagrams: %v, want DatagramsUnavailable", err)
		}
	})
}
