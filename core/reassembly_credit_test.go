package weida_test

import (
	"strconv"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// A burst of pushes under reassembly arrives whole and in order, with no
// gap reported: the receiver grants no more streams than its hold can
// wait behind. With the default credit (2048) a burst of 5,000 pushes was
// overtaken past the 256-transfer hold in every run, which let numbers go
// early as gaps although nothing was lost.
func TestReassemblyBurstArrivesInOrder(t *testing.T) {
	const n = 5000
	cfg := weida.Config{Guarantees: guarantee.Set{Ordering: guarantee.PerProducerReassemble}}
	srv := guaranteeRuntime(t, cfg)
	b := bindLoopback(t, srv)
	pull, err := b.Puller("/burst")
	if err != nil {
		t.Fatal(err)
	}
	client := guaranteeRuntime(t, cfg)
	push := client.Pusher(weida.TrustByAddress())
	ctx := ctxFor(t)
	if err := push.Connect(ctx, b.URL("/burst")); err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		for i := range n {
			if err := push.Send(ctx, []byte(strconv.Itoa(i))); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	for i := range n {
		body, meta, err := pull.Recv(ctx, 64)
		if err != nil {
			t.Fatal(err)
		}
		if missed, gap := meta.Missed(); gap {
			t.Fatalf("message %d reported %d missed, with nothing lost", i, missed)
		}
		if string(body) != strconv.Itoa(i) {
			t.Fatalf("message %d arrived as %s", i, body)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

func TestReassemblyRefusesMoreCreditThanItsHold(t *testing.T) {
	cfg := weida.Config{Guarantees: guarantee.Set{Ordering: guarantee.PerProducerReassemble},
		Limits: weida.Limits{MaxConcurrentUniStreams: weida.ReassemblyUniStreams + 1}}
	if _, err := weida.NewRuntime(cfg); err == nil || !strings.Contains(err.Error(), "MaxConcurrentUniStreams must be at most 257") {
		t.Fatalf("NewRuntime with a credit past the hold: %v", err)
	}
	cfg.Limits.MaxConcurrentUniStreams = 64 // a smaller credit is the user's to choose
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rt.Shutdown()
}
