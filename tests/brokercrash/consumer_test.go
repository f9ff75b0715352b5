package brokercrash

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

const (
	// drainTimeout bounds the wait for one message while draining.
	drainTimeout = 20 * time.Second
	// maxDrainFailures bounds consecutive failed receives while draining,
	// so a body the broker can never deliver fails the test, not hangs it.
	maxDrainFailures = 10
)

// settle reports Processed at the body's length: the queue forgets it.
func settle(r *weida.Reporter, body []byte) {
	_ = r.Report(weida.Processed, uint64(len(body))) // best effort by design
	_ = r.Finish()
}

// giveBack reports Processed at 0: the queue delivers it again at once.
func giveBack(r *weida.Reporter) {
	_ = r.Report(weida.Processed, 0)
	_ = r.Finish()
}

// settlerFilters: the settler takes the messages of producers 0 and 1
// (one by exchange, one one-way); those of producers 2 and 3 stay in the
// store through every kill and restart until the final drain.
var settlerFilters = []string{"m.0.*", "m.1.*"}

// settler consumes while the kills happen: of what it receives it settles
// five in eight, gives one back and holds two unreported, so each crash
// finds SETTLE records at the journal's tail, redeliveries and deliveries
// outstanding (which must come back after the restart).
type settler struct {
	sub    *weida.Subscriber
	rng    *rand.Rand
	ledger *ledger
	held   []*weida.Reporter
}

// startSettler subscribes to url with a standing grant and consumes until
// the returned stop is called (it waits for the settler to end).
func startSettler(t *testing.T, url string, seed uint64, l *ledger) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	s := &settler{sub: rt.Subscriber(weida.TrustByAddress()), rng: rand.New(rand.NewPCG(seed, 0x5e771e)), ledger: l}
	if err := s.sub.Connect(ctx, url); err != nil {
		t.Fatalf("the settler cannot connect to %s: %v", url, err)
	}
	for _, filter := range settlerFilters {
		if err := s.sub.Subscribe(ctx, filter); err != nil {
			t.Fatalf("the settler cannot subscribe to %q: %v", filter, err)
		}
	}
	// The grant is re-sent on every redial, to each new subscription.
	if err := s.sub.Grant(ctx, crashkit.UnlimitedCredit); err != nil {
		t.Fatalf("the settler cannot grant credit: %v", err)
	}
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		s.run(ctx)
	}()
	return func() {
		cancel()
		done.Wait()
		_ = s.sub.Close()
		for _, r := range s.held {
			_ = r.Finish() // their connections are gone; this only releases them
		}
	}
}

func (s *settler) run(ctx context.Context) {
	for {
		body, meta, report, err := s.sub.RecvReporting(ctx, crashkit.MaxDelivery)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.ledger.receiveFailed() // a delivery cut short by a kill: it comes back
			continue
		}
		topic, intact := s.ledger.received(body, meta)
		if report == nil {
			s.ledger.violations.Add("the delivery of %s ordered no report", topic)
			continue
		}
		switch n := s.rng.IntN(8); {
		case n < 5:
			settle(report, body)
			if intact {
				s.ledger.settled(topic)
			}
		case n < 7:
			s.held = append(s.held, report)
		default:
			giveBack(report)
		}
	}
}

// The sentinel is published after the last restart, once the producers
// stopped; it is the last message of the queue.
const sentinelTopic = "sentinel"

var sentinelBody = []byte("the end of the queue")

// drain publishes the sentinel and then takes the queue's messages one at
// a time (credit one above what it received, each settled before the
// next grant) until the sentinel. A queue delivers from its head and
// nothing goes back to the head when each delivery is settled, so
// everything the queue held before the sentinel has been delivered once it
// arrives. It returns how many messages it received before the sentinel.
func drain(t *testing.T, url string, l *ledger) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown()
	sub := rt.Subscriber(weida.TrustByAddress())
	defer sub.Close()
	if err := sub.Connect(ctx, url); err != nil {
		t.Fatalf("the drain cannot connect to %s: %v", url, err)
	}
	if err := sub.Subscribe(ctx, ""); err != nil {
		t.Fatalf("the drain cannot subscribe: %v", err)
	}
	publishSentinel(ctx, t, rt, url)
	received, failures := 0, 0
	for deliveries := uint64(0); ; {
		if err := sub.Grant(ctx, deliveries+1); err != nil {
			t.Fatalf("the drain cannot grant credit: %v", err)
		}
		recvCtx, cancelRecv := context.WithTimeout(ctx, drainTimeout)
		body, meta, report, err := sub.RecvReporting(recvCtx, crashkit.MaxDelivery)
		cancelRecv()
		deliveries++ // a failed receive spent its credit too
		if err != nil {
			l.receiveFailed()
			if failures++; failures >= maxDrainFailures || weida.KindOf(err) == weida.KindCanceled {
				t.Fatalf("the drain stopped after %d messages, before the sentinel: %v", received, err)
			}
			continue
		}
		failures = 0
		topic, _ := meta.Topic()
		if report == nil {
			t.Fatalf("the delivery of %s ordered no report", topic)
		}
		settle(report, body)
		if topic == sentinelTopic {
			if !bytes.Equal(body, sentinelBody) {
				t.Fatalf("the sentinel came back as %q", body)
			}
			return received
		}
		if _, intact := l.received(body, meta); intact {
			l.settled(topic)
		}
		received++
	}
}

// publishSentinel sends the sentinel as an exchange and requires Stored.
func publishSentinel(ctx context.Context, t *testing.T, rt *weida.Runtime, url string) {
	t.Helper()
	publishStored(ctx, t, rt, url, sentinelTopic, sentinelBody)
}

// publishStored sends one message as an exchange and requires Stored.
func publishStored(ctx context.Context, t *testing.T, rt *weida.Runtime, url, topic string, body []byte) {
	t.Helper()
	req := rt.Requester(weida.TrustByAddress())
	defer req.Close()
	if err := req.Connect(ctx, url); err != nil {
		t.Fatalf("cannot connect to publish %s: %v", topic, err)
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	_, meta, err := req.RequestWith(ctx, weida.TransferMeta{Topic: topic}, body, 0)
	if err != nil {
		t.Fatalf("%s was not admitted: %v", topic, err)
	}
	if level, _ := meta.Achieved(); level != weida.Stored {
		t.Fatalf("%s was confirmed at level %d, want Stored (3)", topic, level)
	}
}
