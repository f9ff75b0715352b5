package quicsys

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weida-go/weida/core/transport"
)

func TestOnlyTheTracedSystemAttachesATracerOnBothEnds(t *testing.T) {
	for _, traced := range []bool{false, true} {
		for _, dialling := range []bool{false, true} {
			if got := (System{Traced: traced}).config(dialling).Tracer != nil; got != traced {
				t.Errorf("traced %v, dialling %v: a tracer is attached: %v", traced, dialling, got)
			}
		}
	}
	if raw, qlog := (System{}).Name(), (System{Traced: true}).Name(); raw == qlog {
		t.Errorf("both systems are named %q", raw)
	}
}

// The floor holds a one-way message's stream credit until its consumer
// took it: more messages than the connection's stream limit arrive only if
// each is given back then.
func TestTheFloorGivesStreamCreditBackOnceConsumed(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	sys := System{Floor: true}
	if !sys.config(false).RequireStreamCreditRelease {
		t.Fatal("the floor's listener gives stream credit back unreleased")
	}
	const size, messages = 64, transport.DefaultMaxUniStreams + 500
	var got atomic.Int64
	all := make(chan struct{})
	sink, err := sys.StartSink(ctx, size, func(n int, err error) {
		if err != nil || n != size {
			t.Errorf("received %d bytes, %v; want %d", n, err, size)
		}
		if got.Add(1) == messages {
			close(all)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	src, err := sys.DialSource(ctx, sink.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	payload := make([]byte, size)
	for i := range messages {
		if err := src.Send(ctx, payload); err != nil {
			t.Fatalf("send %d of %d: %v", i, messages, err)
		}
	}
	select {
	case <-all:
	case <-ctx.Done():
		t.Fatalf("%d of %d messages arrived", got.Load(), messages)
	}
}
