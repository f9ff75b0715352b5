package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// subscribeCatcher is a recorder that hands over the connection a
// SUBSCRIBE arrived on.
type subscribeCatcher struct {
	*recorder
	subscribed chan *Conn
}

func (h *subscribeCatcher) Control(c *Conn, kind wire.Kind, _ *wire.Subscribe, _ *wire.Credit) {
	if kind == wire.KindSubscribe {
		h.subscribed <- c
	}
}

// rawUnixJoin joins a unix listener at path by hand, as a dialling peer
// that parks nothing unless told: control preamble, token, and a HELLO
// offering datagrams. It returns the group token.
func rawUnixJoin(t *testing.T, path string) []byte {
	t.Helper()
	ctrl, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctrl.Close() })
	token := make([]byte, groupTokenLen)
	if _, err := ctrl.Write([]byte{preambleControl}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(ctrl, token); err != nil {
		t.Fatal(err)
	}
	h := wire.DefaultHello()
	h.Capabilities = []uint64{wire.CapabilityDatagram}
	if _, err := ctrl.Write(wire.AppendFrame(nil, wire.KindHello, &h)); err != nil {
		t.Fatal(err)
	}
	return token
}

// rawUnixSubscribe sends one SUBSCRIBE on a transfer connection of the
// group and returns that connection.
func rawUnixSubscribe(t *testing.T, path string, token []byte) net.Conn {
	t.Helper()
	sub := rawUnixMember(t, path, preambleTransfer, token)
	frame := wire.AppendFrame(nil, wire.KindSubscribe, &wire.Subscribe{Endpoint: "/t"})
	chunk := binary.LittleEndian.AppendUint32([]byte{chunkPayload}, uint32(len(frame)))
	if _, err := sub.Write(append(append(chunk, frame...), chunkFIN)); err != nil {
		t.Fatal(err)
	}
	return sub
}

// rawUnixMember connects a transfer or reverse connection of the group.
func rawUnixMember(t *testing.T, path string, kind byte, token []byte) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := conn.Write(append([]byte{kind}, token...)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// listenUnixSubscriptions binds a unix listener with datagrams on whose
// handler hands over the connections SUBSCRIBEs arrive on.
func listenUnixSubscriptions(t *testing.T, cfg Config) (string, *subscribeCatcher) {
	t.Helper()
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")
	h := &subscribeCatcher{recorder: newRecorder(), subscribed: make(chan *Conn, 1)}
	l, err := ListenUnix(path, cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	return path, h
}

// TestUnixSubscriberThatParksNoneIsRefused: a unix subscriber can only be
// sent to on a reverse connection it parked; one that parks none has its
// SUBSCRIBE refused (the transfer closed, nothing recorded), one that
// parked one is subscribed (PROTOCOL.md §12).
func TestUnixSubscriberThatParksNoneIsRefused(t *testing.T) {
	cfg := datagramsConfig()
	cfg.Limits.HelloTimeout = 200 * time.Millisecond // how long the first park is waited for
	for _, parks := range []bool{false, true} {
		t.Run(fmt.Sprintf("parks=%v", parks), func(t *testing.T) {
			path, h := listenUnixSubscriptions(t, cfg)
			token := rawUnixJoin(t, path)
			if parks {
				rawUnixMember(t, path, preambleReverse, token)
			}
			sub := rawUnixSubscribe(t, path, token)
			if parks {
				select {
				case <-h.subscribed:
				case <-testContext(t).Done():
					t.Fatal("the SUBSCRIBE of a subscriber that parked was not recorded")
				}
				return
			}
			if n, err := sub.Read(make([]byte, 1)); n != 0 || err == nil {
				t.Fatalf("read %d bytes (%v) from a refused SUBSCRIBE, want its close", n, err)
			}
			select {
			case <-h.subscribed:
				t.Fatal("the SUBSCRIBE of a subscriber that parks none reached the handler")
			default:
			}
		})
	}
}

// TestLocalFlowNowWithoutAParkedConnection: toward a unix subscriber whose
// parked reverse connections are all taken, a flow or stream that must not
// wait (a radio's) is NoParkedConnection at once, so the radio drops and
// counts that copy (PROTOCOL.md §12); once the subscriber parks another,
// the flow opens on it.
func TestLocalFlowNowWithoutAParkedConnection(t *testing.T) {
	path, h := listenUnixSubscriptions(t, datagramsConfig())
	token := rawUnixJoin(t, path)
	rawUnixMember(t, path, preambleReverse, token)
	rawUnixSubscribe(t, path, token)
	var c *Conn
	select {
	case c = <-h.subscribed:
	case <-testContext(t).Done():
		t.Fatal("the SUBSCRIBE never arrived")
	}
	first, err := c.OpenFlowNow(wire.Flow{Endpoint: "/t"}) // takes the one parked connection
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := c.OpenFlowNow(wire.Flow{Endpoint: "/t"}); !errors.Is(err, errs.ErrNoParkedConnection) {
		t.Fatalf("flow with nothing parked: %v, want NoParkedConnection", err)
	}
	// A radio's stream segment copy is dropped the same way.
	if _, err := c.OpenUniNow(&wire.Data{Endpoint: wire.Some("/t")}); !errors.Is(err, errs.ErrNoParkedConnection) {
		t.Fatalf("stream with nothing parked: %v, want NoParkedConnection", err)
	}
	rawUnixMember(t, path, preambleReverse, token)
	waitFor(t, "the reverse connection to be parked", func() bool {
		f, err := c.OpenFlowNow(wire.Flow{Endpoint: "/t"})
		if err == nil {
			f.Close()
		}
		return err == nil
	})
}
