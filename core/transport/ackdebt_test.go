package transport

import (
	"io"
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// A receiver that reads a transfer to its end and closes gracefully at once
// still acknowledges it first: the sender's receipt resolves delivered, not
// Indeterminate (quic-go delays an ACK; a CONNECTION_CLOSE carries none).
func TestGracefulCloseSendsTheAcksItOwes(t *testing.T) {
	for i := range 10 {
		s := startServer(t, NewConfig())
		c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
		out, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write([]byte("one small transfer, one packet")); err != nil {
			t.Fatal(err)
		}
		r, err := out.Finish()
		if err != nil {
			t.Fatal(err)
		}
		in := <-s.h.data
		if _, err := io.ReadAll(in); err != nil {
			t.Fatal(err)
		}
		in.Conn().Close(wire.CodeShutdown, "done")
		<-r.Done()
		if err := r.Err(); err != nil {
			t.Fatalf("round %d: the receipt of a transfer the peer read whole: %v", i, err)
		}
	}
}

// A close waits for the packets quic-go began handling to be logged: their
// frames may already be in a reader's hands before the tracker hears of
// them.
func TestAckDebtWaitsForPacketsInHand(t *testing.T) {
	tr := newReceiptTracker(false)
	tr.onLogged(40)
	if tr.unlogged(40) != nil {
		t.Fatal("waits although every packet begun is logged")
	}
	wait := tr.unlogged(100)
	if wait == nil {
		t.Fatal("does not wait for a packet begun after the last one logged")
	}
	tr.onLogged(60)
	select {
	case <-wait:
		t.Fatal("done before the packet in hand was logged")
	default:
	}
	tr.onLogged(100)
	select {
	case <-wait:
	default:
		t.Fatal("still waiting once the packet in hand was logged")
	}
}
