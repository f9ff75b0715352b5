package transport

import (
	"bytes"
	"io"
	"testing"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/wire"
)

func TestSendNowSendsAWholeTransfer(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	payload := []byte("sent without waiting")
	h := wire.Data{Endpoint: wire.Some("/t"), ContentLen: wire.Some(uint64(len(payload)))}
	r, sent, err := c.SendNow(&h, payload)
	if err != nil || !sent {
		t.Fatalf("SendNow = %v, %v; want sent", sent, err)
	}
	in := <-s.h.data
	if got := in.Header.Endpoint; !got.Ok || got.V != "/t" {
		t.Errorf("endpoint %+v, want /t", got)
	}
	if got, err := io.ReadAll(in); err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("read %q, %v; want %q", got, err, payload)
	}
	<-r.Done()
	if err := r.Err(); err != nil {
		t.Fatalf("receipt: %v", err)
	}
}

// Without the peer's stream credit at hand SendNow reports false and the
// peer gets nothing of that attempt; once credit returns it sends again.
func TestSendNowWithoutCreditSendsNothing(t *testing.T) {
	const credit = 4
	cfg := NewConfig()
	cfg.Limits.MaxConcurrentUniStreams = credit
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	// Send until the credit runs out, holding every stream the peer gets
	// unread so that none of it comes back. The HELLO stream's credit may
	// return late, so a false is retried once the streams sent are held.
	var held []*InStream
	for sent := 0; ; sent++ {
		_, ok, err := c.SendNow(&h, []byte{byte(sent)})
		if err != nil {
			t.Fatalf("send %d: %v", sent, err)
		}
		if ok {
			if sent == credit {
				t.Fatalf("%d sends went out on a credit of %d", sent+1, credit)
			}
			continue
		}
		for len(held) < sent {
			held = append(held, <-s.h.data)
		}
		if _, ok, err := c.SendNow(&h, []byte{byte(sent)}); err != nil {
			t.Fatalf("send %d again: %v", sent, err)
		} else if ok {
			continue // the late credit: this one went out
		}
		break
	}
	if len(held) == 0 {
		t.Fatal("no send went out at all")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the connection ended: %v", err)
	}
	seen := make(map[byte]bool)
	for _, in := range held {
		got, err := io.ReadAll(in)
		if err != nil || len(got) != 1 || seen[got[0]] {
			t.Fatalf("a held stream read %v, %v", got, err)
		}
		seen[got[0]] = true
	}
	// Credit returns as the peer finishes its streams: a send that waits
	// for it (OpenUni) proves it is back, and it is the next stream the
	// peer sees — the refused attempt left nothing behind.
	out, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("after")); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(<-s.h.data); err != nil || string(got) != "after" {
		t.Fatalf("the next stream read %q, %v; want the waiting send's", got, err)
	}
	sendNowOnceCredited(t, c, &h, []byte("again"))
	if got, err := io.ReadAll(<-s.h.data); err != nil || string(got) != "again" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// sendNowOnceCredited retries SendNow at each change of the peer's stream
// credit until it goes out: the peer grants credit back in MAX_STREAMS
// frames that may trail the reads that freed it.
func sendNowOnceCredited(t *testing.T, c *Conn, h *wire.Data, payload []byte) {
	t.Helper()
	ct := &c.receipts.credit
	for {
		ct.mu.Lock()
		if ct.changed == nil {
			ct.changed = make(chan struct{})
		}
		changed := ct.changed // taken before the attempt, so no grant is missed
		ct.mu.Unlock()
		_, ok, err := c.SendNow(h, payload)
		if err != nil {
			t.Fatalf("SendNow with credit back: %v", err)
		}
		if ok {
			return
		}
		select {
		case <-changed:
		case <-testContext(t).Done():
			t.Fatal("SendNow never went out once the peer read every stream")
		}
	}
}

// A payload too large to travel with its header, and a local transport,
// are left to the waiting path at once: nothing is opened.
func TestSendNowLeavesWhatItCannotFinishAtOnce(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	if _, sent, err := c.SendNow(&h, make([]byte, coalesceMax+1)); err != nil || sent {
		t.Fatalf("a payload above %d bytes: %v, %v; want false", coalesceMax, sent, err)
	}
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		_, lc := connectLocal(t, start)
		if _, sent, err := lc.SendNow(&h, []byte("x")); err != nil || sent {
			t.Fatalf("a local transport: %v, %v; want false", sent, err)
		}
	})
	// Nothing reached the QUIC peer: the next stream it sees is this one.
	if _, sent, err := c.SendNow(&h, []byte("small")); err != nil || !sent {
		t.Fatalf("SendNow: %v, %v", sent, err)
	}
	if got, err := io.ReadAll(<-s.h.data); err != nil || string(got) != "small" {
		t.Fatalf("read %q, %v; want small", got, err)
	}
}

// Without flow-control room for the whole payload SendNow resets the
// stream it opened before its first byte: the peer's handler never sees it.
func TestSendNowWithoutWindowSendsNothing(t *testing.T) {
	const window = 8 << 10
	cfg := NewConfig()
	cfg.Limits.StreamReceiveWindow, cfg.Limits.ConnectionReceiveWindow = window, window
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	// A transfer the peer does not read fills the connection's window.
	out, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	filler := bytes.Repeat([]byte("f"), window)
	wrote := make(chan error, 1)
	go func() {
		_, err := out.Write(filler)
		if err == nil {
			_, err = out.Finish()
		}
		wrote <- err
	}()
	held := <-s.h.data
	if _, ok, err := c.SendNow(&h, []byte("no room")); err != nil || ok {
		t.Fatalf("SendNow with the window spent: %v, %v; want false and no error", ok, err)
	}
	if got, err := io.ReadAll(held); err != nil || len(got) != window {
		t.Fatalf("the filler read %d bytes, %v", len(got), err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.SendNow(&h, []byte("room again")); err != nil || !ok {
		t.Fatalf("SendNow with room: %v, %v", ok, err)
	}
	if got, err := io.ReadAll(<-s.h.data); err != nil || string(got) != "room again" {
		t.Fatalf("the next stream the handler saw read %q, %v; want the second attempt's", got, err)
	}
}

// A peer that stops the stream after SendNow queued its bytes makes the FIN
// fail. The attempt still reports true, with that error: the peer may have
// read the transfer before refusing it, so a caller that took false for
// "nothing sent" and sent it again would repeat it.
func TestSendNowRefusedAfterItsBytesWentReportsSent(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	ctx := testContext(t)
	t.Cleanup(faults.Set(&faults.SendNowQueued, func(payload []byte, stopped <-chan struct{}) {
		if !bytes.HasPrefix(payload, []byte("refused as it went")) {
			return // another test's send
		}
		select {
		case in := <-s.h.data: // the peer has the stream: it refuses it
			in.Refuse(wire.CodeRejected)
		case <-ctx.Done():
			t.Error("the peer never got the stream")
			return
		}
		select {
		case <-stopped: // the STOP_SENDING arrived
		case <-ctx.Done():
			t.Error("the peer's STOP_SENDING never arrived")
		}
	}))
	h := wire.Data{Endpoint: wire.Some("/t")}
	sent, err := c.SendNowUnwatched(&h, []byte("refused as it went"))
	if !sent || errs.KindOf(err) != errs.KindRejected {
		t.Errorf("SendNowUnwatched refused after its bytes were queued = %v, %v; want true and the peer's refusal (Rejected)", sent, err)
	}
	// A watched attempt's refusal surfaces from its receipt.
	r, sent, err := c.SendNow(&h, []byte("refused as it went, watched"))
	if !sent || err != nil || r == nil {
		t.Fatalf("SendNow refused after its bytes were queued = %v, %v, %v; want true and a receipt", r, sent, err)
	}
	<-r.Done()
	if r.Err() == nil {
		t.Error("the refused transfer's receipt resolved without an error")
	}
}
