package transport

import (
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// blockingRecorder holds every exchange in its Handler call until release
// closes, as an endpoint with a full queue does.
type blockingRecorder struct {
	*recorder
	release chan struct{}
}

func (b *blockingRecorder) Exchange(c *Conn, ex *Exchange) {
	b.recorder.Exchange(c, ex)
	<-b.release
}

// The goroutine that accepts an exchange also serves it, so it must hand
// the accepting on first: Handlers that block may not stop the next
// exchanges from arriving, however many block at once.
func TestBlockedExchangeHandlersDoNotStopAccepting(t *testing.T) {
	t.Cleanup(goroutineBaseline(t)) // runs last: after the closes below
	h := &blockingRecorder{recorder: newRecorder(), release: make(chan struct{})}
	id, tlsConf := serverTLS(t)
	l, err := Listen("127.0.0.1:0", tlsConf, Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	c, _ := dialServer(t, &server{l: l, id: id}, l.Addr(), Config{})
	t.Cleanup(func() { close(h.release) }) // runs first: the Handlers return
	const blocked = 2 * maxAccepting
	for i := range blocked {
		out, _, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		select {
		case ex := <-h.exchanges:
			ex.ReplyError(wire.ErrorRejected)
		case <-testContext(t).Done():
			t.Fatalf("exchange %d was not accepted while %d Handlers block", i+1, i)
		}
	}
}
