package brokercrash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

const (
	// maxBodyBits: bodies are 1 B to 2^18-1 B (256 KiB), log-uniform, so
	// most are small and some span many writes past the store's 32 KiB
	// buffer (a kill then lands mid-body).
	maxBodyBits = 18
	// sharedOneIn: one message in eight carries one of sharedBodySizes'
	// bodies, the same bytes for every producer, so the store keeps one
	// payload for many messages while some of them settle (dedup and its
	// reference counts under a crash).
	sharedOneIn = 8
	// sendTimeout bounds one send, including waiting for the redial while
	// the broker is down; a restart takes well under a second.
	sendTimeout = 20 * time.Second
)

// sharedBodySizes cover the store's three paths: up to 4 KiB a body rides
// inside its journal record (no dedup), up to the 32 KiB write buffer it
// goes straight to its payload file, above it through payload/tmp.
var sharedBodySizes = []int{1, 700, 8 << 10, 40 << 10, 200 << 10}

// sharedBodies makes the bodies every producer draws from.
func sharedBodies(seed uint64) [][]byte {
	var key [32]byte
	copy(key[:], fmt.Sprintf("shared bodies of seed %d", seed))
	src := rand.NewChaCha8(key)
	bodies := make([][]byte, len(sharedBodySizes))
	for i, size := range sharedBodySizes {
		bodies[i] = make([]byte, size)
		_, _ = src.Read(bodies[i]) // never fails
	}
	return bodies
}

// producer publishes distinct messages to the queue until stopped, by
// exchange (certified by the confirm's key 8) or one-way (certified by
// the Stored cursor it ordered).
type producer struct {
	index  int
	oneWay bool
	req    *weida.Requester
	push   *weida.Pusher
	bytes  *rand.ChaCha8 // bodies
	rng    *rand.Rand    // sizes
	shared [][]byte      // bodies every producer sends now and then
	ledger *ledger
}

// startProducers connects n producers, alternating exchange and one-way,
// and runs them until ctx ends; the returned wait returns once all have
// stopped.
func startProducers(ctx context.Context, t *testing.T, url string, n int, seed uint64, l *ledger) (wait func()) {
	t.Helper()
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	var wg sync.WaitGroup
	shared := sharedBodies(seed)
	for i := range n {
		var key [32]byte
		copy(key[:], fmt.Sprintf("producer %d of seed %d", i, seed))
		p := &producer{index: i, oneWay: i%2 == 1, ledger: l, shared: shared,
			bytes: rand.NewChaCha8(key), rng: rand.New(rand.NewPCG(seed, uint64(i)))}
		if p.oneWay {
			p.push = rt.Pusher(weida.TrustByAddress())
			err = p.push.Connect(ctx, url)
		} else {
			p.req = rt.Requester(weida.TrustByAddress())
			err = p.req.Connect(ctx, url)
		}
		if err != nil {
			t.Fatalf("producer %d cannot connect to %s: %v", i, url, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(ctx)
		}()
	}
	return wg.Wait
}

// run sends message after message until ctx ends.
func (p *producer) run(ctx context.Context) {
	for n := 0; ctx.Err() == nil; n++ {
		topic := fmt.Sprintf("m.%d.%d", p.index, n)
		body := p.body()
		p.ledger.sent(topic, body)
		var err error
		if p.oneWay {
			err = p.sendOneWay(ctx, topic, body)
		} else {
			err = p.exchange(ctx, topic, body)
		}
		if err != nil {
			p.ledger.failed(topic, err)
		}
	}
}

// body is fresh random bytes of a log-uniform size in [1, 2^maxBodyBits),
// or now and then a shared body.
func (p *producer) body() []byte {
	if p.rng.IntN(sharedOneIn) == 0 {
		return p.shared[p.rng.IntN(len(p.shared))]
	}
	size := 1 << p.rng.IntN(maxBodyBits)
	size += p.rng.IntN(size) // uniform within the power of two
	b := make([]byte, size)
	_, _ = p.bytes.Read(b) // never fails
	return b
}

// exchange sends one message as an exchange; the confirm must say Stored.
func (p *producer) exchange(ctx context.Context, topic string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	_, meta, err := p.req.RequestWith(ctx, weida.TransferMeta{Topic: topic}, body, 0)
	if err != nil {
		return err
	}
	level, ok := meta.Achieved()
	if !ok || level != weida.Stored {
		p.ledger.violations.Add("exchange %s to a stored queue confirmed at level %d (present %v), want Stored (3)", topic, level, ok)
		return nil
	}
	p.ledger.certify(topic)
	return nil
}

// errReportEnded: the report ended without Stored (the broker died first).
var errReportEnded = errors.New("the report ended without Stored")

// sendOneWay sends one message as a one-way transfer ordering Stored and
// waits for the cursor: Stored is reported once, at the body's length,
// when the commit record is flushed (BROKER.md O-10).
func (p *producer) sendOneWay(ctx context.Context, topic string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	out, err := p.push.Open(ctx, weida.TransferMeta{Topic: topic, Report: weida.ReportOrder{Levels: []uint64{weida.Stored}}})
	if err != nil {
		return err
	}
	cursors := out.Cursors()
	defer cursors.Close()
	if _, err := out.Write(body); err != nil {
		out.Cancel()
		return err
	}
	if _, err := out.Finish(); err != nil {
		return err
	}
	for {
		if offset, ok := cursors.Offset(weida.Stored); ok {
			if offset != uint64(len(body)) {
				p.ledger.violations.Add("one-way %s: Stored reported at offset %d of a %d-byte body (O-10: only at its length)", topic, offset, len(body))
				return nil
			}
			p.ledger.certify(topic)
			return nil
		}
		_, more, err := cursors.Changed(ctx)
		if err != nil {
			return err
		}
		if !more && !hasLevel(cursors, weida.Stored) {
			return errReportEnded
		}
	}
}

func hasLevel(c *weida.Cursors, level uint64) bool {
	_, ok := c.Offset(level)
	return ok
}
