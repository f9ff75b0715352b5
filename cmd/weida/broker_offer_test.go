package main

// What `weida broker` offers in the handshake (BROKER.md O-4): the
// acknowledgement every one of its queues reaches, while it requires core.

import (
	"errors"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// TestBrokerOffersWhatItsQueuesReach dials `weida broker` and `weida
// serve` from clients requiring core, Accepted and Stored(Flushed): each
// connects and sees its level confirmed where every queue of the process
// reaches it, and fails at Connect, naming the acknowledgement, where not.
func TestBrokerOffersWhatItsQueuesReach(t *testing.T) {
	t.Parallel()
	accepted := guarantee.Set{Acknowledgement: guarantee.Accepted}
	flushed := guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Flushed}
	mixed := func(t *testing.T) string { // /jobs in memory beside /disk flushed; dial /disk
		_, addrs := startBrokerProc(t, 2, "weida://127.0.0.1:0/jobs", "--queue", "/disk:flushed", "--data", t.TempDir())
		return addrs[1]
	}
	allFlushed := func(t *testing.T) string {
		_, addrs := startBrokerProc(t, 1, "weida://127.0.0.1:0/disk", "--queue", "/disk:flushed", "--data", t.TempDir())
		return addrs[0]
	}
	memory := func(t *testing.T) string {
		_, addrs := startBrokerProc(t, 1, "weida://127.0.0.1:0/jobs")
		return addrs[0]
	}
	serve := func(t *testing.T) string { return startServe(t, "--echo", "weida://127.0.0.1:0/echo").addr }
	tests := []struct {
		name    string
		server  func(*testing.T) string
		require guarantee.Set
		confirm uint64   // the level confirmed, on success
		want    []string // what the Negotiation error names, on failure
	}{
		{"a core client to a broker", mixed, guarantee.Set{}, weida.Stored, nil},
		{"Accepted from a memory broker", memory, accepted, weida.Accepted, nil},
		{"Stored(Flushed) from a flushed broker", allFlushed, flushed, weida.Stored, nil},
		{"Stored(Flushed) from a broker with a memory queue", mixed, flushed, 0,
			[]string{"acknowledgement", "2 (Accepted)", "3 (Stored)"}},
		{"Accepted from weida serve", serve, accepted, 0,
			[]string{"acknowledgement", "1 (TransportReceipt)", "2 (Accepted)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			addr := tt.server(t)
			rt, err := weida.NewRuntime(weida.Config{Guarantees: tt.require})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rt.Shutdown)
			req := rt.Requester(weida.TrustByAddress())
			err = req.Connect(ctx, addr)
			if tt.want != nil {
				if !errors.Is(err, weida.ErrNegotiation) {
					t.Fatalf("Connect: %v, want Negotiation", err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("Connect: %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			_, meta, err := req.RequestWith(ctx, weida.TransferMeta{}, []byte("job"), 16)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := meta.Achieved(); !ok || got != tt.confirm {
				t.Fatalf("%s confirmed %d (%v), want %d", addr, got, ok, tt.confirm)
			}
		})
	}
}
