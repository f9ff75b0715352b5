package weida_test

import (
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/internal/faults"
)

func TestPushTrySendDeliversWithoutWaiting(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.url)
	const n = 20
	for i := range n {
		sent, err := push.TrySend([]byte{byte(i)})
		if err != nil || !sent {
			t.Fatalf("TrySend %d = %v, %v; want sent", i, sent, err)
		}
	}
	seen := map[byte]bool{}
	for range n {
		body, _, err := srv.pull.Recv(ctxFor(t), 8)
		if err != nil || len(body) != 1 || seen[body[0]] {
			t.Fatalf("recv %v, %v", body, err)
		}
		seen[body[0]] = true
	}
}

// A push the peer refuses after its bytes were queued (a path nobody
// serves; the refusal is let in between the bytes and the FIN) went out:
// TrySend says true with the refusal, not false ("nothing done"), after
// which a caller would send it again.
func TestPushTrySendRefusedAsItWentReportsTheRefusal(t *testing.T) {
	srv := pushpullServe(t, weida.Config{})
	push := pushpullPusher(t, testRuntime(t), nil, srv.b.URL("/nobody"))
	ctx := ctxFor(t)
	t.Cleanup(faults.Set(&faults.SendNowQueued, func(payload []byte, stopped <-chan struct{}) {
		if string(payload) != "to nobody" {
			return // another test's send
		}
		select {
		case <-stopped: // the listener's STOP_SENDING(UNKNOWN_ENDPOINT)
		case <-ctx.Done():
		}
	}))
	sent, err := push.TrySend([]byte("to nobody"))
	if !sent {
		t.Fatalf("TrySend refused as it went = false, %v; want true", err)
	}
	reqrepWantKind(t, "TrySend to a path nobody serves", err, weida.KindUnknownEndpoint)
}

func TestPushTrySendWithoutConnectIsNotConnected(t *testing.T) {
	push := pushpullPusher(t, testRuntime(t), nil)
	sent, err := push.TrySend([]byte("x"))
	if sent {
		t.Fatal("sent without a connection")
	}
	reqrepWantKind(t, "TrySend before Connect", err, weida.KindNotConnected)
}

// During an outage TrySend fills the outbox like Send, and at its bound
// says false where Send would wait (OutboxBlock) instead of waiting.
func TestPushTrySendAtTheOutboxBounds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cfg         weida.Config
		sizes       []int // tried in order during the outage; all but the last are taken
		wantLast    bool
		wantKind    weida.ErrorKind
		wantDropped uint64
	}{
		{"block: false instead of a wait", weida.Config{OutboxMessages: 2}, []int{8, 8, 8}, false, 0, 0},
		{"drop at the message bound", weida.Config{OutboxMessages: 2, OutboxFull: weida.OutboxDrop}, []int{8, 8, 8}, true, 0, 1},
		{"reject at the byte bound", weida.Config{OutboxBytes: 100, OutboxFull: weida.OutboxReject}, []int{40, 40, 40}, false, weida.KindLimitExceeded, 0},
		{"a body above the byte bound", weida.Config{OutboxBytes: 100}, []int{200}, false, weida.KindLimitExceeded, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			push := pusherInOutage(t, tc.cfg)
			last := len(tc.sizes) - 1
			for _, n := range tc.sizes[:last] {
				if sent, err := push.TrySend(make([]byte, n)); !sent || err != nil {
					t.Fatalf("TrySend into the outbox: %v, %v", sent, err)
				}
			}
			sent, err := push.TrySend(make([]byte, tc.sizes[last]))
			if sent != tc.wantLast {
				t.Errorf("the last TrySend reported %v, want %v", sent, tc.wantLast)
			}
			if tc.wantKind == 0 && err != nil {
				t.Errorf("the last TrySend failed: %v", err)
			} else if tc.wantKind != 0 {
				reqrepWantKind(t, "the last TrySend", err, tc.wantKind)
			}
			if got := push.Dropped(); got != tc.wantDropped {
				t.Errorf("dropped %d, want %d", got, tc.wantDropped)
			}
		})
	}
}

// A connection that numbers its transfers is left to Send: a number drawn
// for an attempt that did nothing would be a gap the receiver waits on.
func TestPushTrySendLeavesNumberedConnectionsToSend(t *testing.T) {
	set := guarantee.Set{Ordering: guarantee.PerProducerReassemble}
	srv := pushpullServe(t, weida.Config{Guarantees: set})
	push := pushpullPusher(t, pushpullRuntime(t, weida.Config{Guarantees: set}), nil, srv.url)
	if sent, err := push.TrySend([]byte("numbered")); sent || err != nil {
		t.Fatalf("TrySend on a numbering connection = %v, %v; want false", sent, err)
	}
	if err := push.Send(ctxFor(t), []byte("numbered")); err != nil {
		t.Fatal(err)
	}
	if body, _, err := srv.pull.Recv(ctxFor(t), 64); err != nil || string(body) != "numbered" {
		t.Fatalf("recv %q, %v", body, err)
	}
}
