package broker

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// brokerPowerCutsEnv sets the cuts per durability of the over-QUIC
// power-loss test (a few by default; build/soak.sh runs 50).
const brokerPowerCutsEnv = "WEIDA_BROKER_POWERCUTS"

// powerBody is producer p's i-th body: unique, and every third one beyond
// the inline bound so payload files are cut too.
func powerBody(p, i int) []byte {
	head := fmt.Sprintf("p%d-m%d|", p, i)
	if i%3 == 0 {
		return append([]byte(head), bytes.Repeat([]byte{byte('a' + p)}, 6000)...)
	}
	return []byte(head + "small")
}

// TestPowerLossOverQUIC: a broker on a simulated disk takes exchanges from
// four producers over real QUIC until the power is cut at a random disk
// operation; a new broker opens the disk as the cut left it and a consumer
// drains the queue. Every message a producer heard certified Stored on a
// Flushed queue comes back intact, nothing that was never sent comes
// back, and the queue always opens. A Written queue may lose what was not
// flushed, so for it the losses are only counted. Bodies are matched
// whole (each is unique), so a body that came back changed counts as lost
// and as one nobody sent.
func TestPowerLossOverQUIC(t *testing.T) {
	cuts := 3
	if v, err := strconv.Atoi(os.Getenv(brokerPowerCutsEnv)); err == nil && v > 0 {
		cuts = v
	}
	for _, d := range []Durability{Flushed, Written} {
		t.Run(d.String(), func(t *testing.T) {
			disk := faultfs.New(7)
			rng := rand.New(rand.NewPCG(uint64(d), 42))
			sent := map[string]bool{} // every body sent in any round
			var certified, lost int
			for cut := range cuts {
				c, l := powerCutRound(t, disk, d, rng, cut, sent)
				certified, lost = certified+c, lost+l
			}
			t.Logf("figure: %s: %d cuts, %d messages certified Stored, %d of them lost", d, cuts, certified, lost)
			if d == Flushed && lost > 0 {
				t.Fatalf("%d certified Flushed messages lost over %d cuts", lost, cuts)
			}
		})
	}
}

// powerCutRound runs one epoch: produce until the cut, reopen, drain. It
// returns the messages certified in it and how many of them did not come
// back.
//
// A message settled in an earlier round may come back too: a SETTLE the
// cut took is a redelivery (at least once), so sent spans every round.
func powerCutRound(t *testing.T, disk *faultfs.Disk, d Durability, rng *rand.Rand, round int, sent map[string]bool) (certified, lost int) {
	t.Helper()
	cfg := Config{Queues: []QueueConfig{{Path: "/jobs", Durability: d}}, DataDir: "/data", storeFS: disk.FS()}
	tb := startBroker(t, cfg)
	url := tb.binding.URL("/jobs")
	disk.CutAfter(20 + rng.IntN(400))
	var mu sync.Mutex
	stored := map[string]bool{} // the bodies certified Stored
	var wg sync.WaitGroup
	for p := range 4 {
		prod := newProducer(t, url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; disk.Cuts() <= round; i++ {
				body := powerBody(p+4*round, i)
				mu.Lock()
				sent[string(body)] = true
				mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, meta, err := prod.req.RequestWith(ctx, weida.TransferMeta{}, body, 1024)
				cancel()
				if level, ok := meta.Achieved(); err == nil && ok && level == weida.Stored {
					mu.Lock()
					stored[string(body)] = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	tb.Close()

	cfg.storeFS = disk.FS() // the old view died with the power
	again := startBroker(t, cfg)
	live := again.stats(t, "/jobs").Ready
	c := newConsumer(t, again.binding.URL("/jobs"), "", uint64(live))
	back := map[string]bool{}
	for range live {
		got := c.recv(t)
		mu.Lock()
		if !sent[string(got.body)] {
			t.Fatalf("round %d delivered a body nobody sent: %.40q", round, got.body)
		}
		mu.Unlock()
		back[string(got.body)] = true
		got.settle(t)
	}
	again.awaitSettled(t, "/jobs")
	again.Close()
	for k := range stored {
		if !back[k] {
			lost++
		}
	}
	return len(stored), lost
}
