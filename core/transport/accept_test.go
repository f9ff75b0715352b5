package transport

import (
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// blockingRecorder holds every transfer and exchange in its Handler call
// until release closes, as an endpoint with a full queue does.
type blockingRecorder struct {
	*recorder
	release chan struct{}
}

func (b *blockingRecorder) Data(c *Conn, in *InStream) {
	b.recorder.Data(c, in)
	<-b.release
}

func (b *blockingRecorder) Exchange(c *Conn, ex *Exchange) {
	b.recorder.Exchange(c, ex)
	<-b.release
}

// The goroutine that accepts a stream also serves it, so it must hand the
// accepting on first: Handlers that block may not stop the next streams
// from arriving, however many block at once, uni or bidi.
func TestBlockedHandlersDoNotStopAccepting(t *testing.T) {
	for _, kind := range []string{"exchange", "one-way"} {
		t.Run(kind, func(t *testing.T) {
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
				openAndFinish(t, c, kind == "exchange")
				select {
				case ex := <-h.exchanges:
					ex.ReplyError(wire.ErrorRejected)
				case in := <-h.data:
					in.Refuse(wire.CodeRejected)
				case <-testContext(t).Done():
					t.Fatalf("%s %d was not accepted while %d Handlers block", kind, i+1, i)
				}
			}
		})
	}
}

// openAndFinish opens an exchange (bidi) or a one-way transfer to /t and
// finishes its initiating half at once.
func openAndFinish(t *testing.T, c *Conn, bidi bool) {
	t.Helper()
	h := &wire.Data{Endpoint: wire.Some("/t")}
	var out *OutStream
	var err error
	if bidi {
		out, _, err = c.OpenBi(testContext(t), h)
	} else {
		out, err = c.OpenUni(testContext(t), h)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
}
