package store_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// The power-loss test's size and seed come from the environment, so the
// heavy run (WEIDA_POWERCUTS=50) and a replay need no code change.
const (
	powerCutsEnv     = "WEIDA_POWERCUTS"
	powerCutSeedEnv  = "WEIDA_POWERCUT_SEED"
	defaultPowerCuts = 4
	// cutWithin: the power goes at a random one of the next 1..cutWithin
	// mutating disk operations, anywhere in a body, a commit, a
	// settlement, a purge or a roll.
	cutWithin = 600
	// recoveryCutOneIn: one start in six loses power during recovery.
	recoveryCutOneIn = 6
	// killOneIn: one epoch in five ends with the process killed, not the
	// power: the page cache keeps what was written, unsynced, for a later
	// cut to take (a restart must not trust it).
	killOneIn      = 5
	powerProducers = 4
)

// TestPowerLossKeepsEveryFlushedMessage drives a store on the simulated
// disk with several producers and a settler, cuts the power at a random
// disk operation, reopens the store on what survived, and repeats. After
// every cut: the queue opens; every message certified Flushed (Admit
// returned) and not being settled or quarantined is back with its exact
// body; at either durability whatever survived the previous cut survives
// this one unless it was settled since (the disk after a cut is durable
// state, so only a store bug can lose it); nothing comes back that was
// never admitted; and no quarantined message returns. A Written queue may
// lose what the OS never flushed, and the test counts it. Cuts tear
// unsynced appends, so torn journal tails and zeroed payloads happen too.
func TestPowerLossKeepsEveryFlushedMessage(t *testing.T) {
	cuts := envPositive(t, powerCutsEnv, defaultPowerCuts)
	seed := uint64(envPositive(t, powerCutSeedEnv, int(time.Now().UnixNano()&0x7fffffffffff)))
	t.Logf("seed %d (%s=%d replays the cut points; goroutine scheduling is not replayable), %d cuts per durability",
		seed, powerCutSeedEnv, seed, cuts)
	for _, d := range []store.Durability{store.Flushed, store.Written} {
		t.Run(d.String(), func(t *testing.T) {
			began := time.Now()
			r := newPowerRun(t, d, seed)
			// Quarantined messages pin the low-water mark for good, so
			// they come only in the last quarter: purges and cell writes
			// are cut too.
			r.quarantineFrom = cuts * 3 / 4
			for r.cuts < cuts {
				r.epoch()
			}
			r.reopen() // the final check, on a store that is then closed cleanly
			mustClose(t, r.s)
			if r.logged < r.dropped {
				t.Errorf("%d messages dropped at recovery, %d logged", r.dropped, r.logged)
			}
			t.Logf("figure: power loss, %s queue: %d cuts (%d during recovery) and %d kills, %d admitted (%d certified), %d settle calls, "+
				"%d quarantined; after the cuts %d certified messages checked back intact, %d certified lost (Written only), "+
				"%d dropped at recovery, %d torn tails cut, checkpoint generation %d; %v",
				d, r.cuts, r.recoveryCuts, r.kills, r.attempted, r.certified, r.settled, r.quarantined,
				r.checked, r.lost, r.dropped, r.torn, r.q.Stats().Generation, time.Since(began).Round(time.Millisecond))
		})
	}
}

func envPositive(t *testing.T, name string, fallback int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return fallback
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// sent is the ledger's entry for one admission attempt, keyed by topic.
type sent struct {
	digest    [32]byte
	size      int
	certified bool   // Admit returned nil
	seq       uint64 // the seq it was certified with
	// touched: Settle or Quarantine was called (whatever it returned), so
	// the message may be gone; quarantined: Quarantine returned nil.
	touched, quarantined bool
}

// powerRun is one durability's run: the disk, the ledger, the figures.
type powerRun struct {
	t    *testing.T
	d    store.Durability
	disk *faultfs.Disk
	rng  *rand.Rand
	s    *store.Store
	q    *store.Queue

	mu        sync.Mutex
	ledger    map[string]*sent
	survivors map[string]bool // topics live after the last reopen
	epochNo   int

	quarantineFrom                                                 int // the cut from which the settler quarantines
	cuts, recoveryCuts, attempted, certified, settled, quarantined int
	checked, lost, dropped, torn, logged, kills                    int
	// killed: the last epoch ended with a kill, not a cut. volatile: the
	// survivors were counted on a restart after a kill, so a Written
	// queue's were never made durable and a cut may take them.
	killed, volatile bool
}

func newPowerRun(t *testing.T, d store.Durability, seed uint64) *powerRun {
	disk := faultfs.New(seed)
	disk.Tear(true)
	return &powerRun{t: t, d: d, disk: disk, rng: rand.New(rand.NewPCG(seed, uint64(d))),
		ledger: map[string]*sent{}, survivors: map[string]bool{}}
}

// epoch reopens the store (sometimes losing power during recovery), then
// runs producers and a settler until the armed cut.
func (r *powerRun) epoch() {
	t := r.t
	r.epochNo++
	defer func() { r.cuts = r.disk.Cuts() }()
	if r.rng.IntN(recoveryCutOneIn) == 0 {
		r.disk.CutAfter(1 + r.rng.IntN(40))
		s, err := r.open()
		if err == nil {
			var q *store.Queue
			q, _, err = s.OpenQueue(queuePath, r.d)
			if err == nil {
				q.Close() // recovery was over before the cut came: cut now
			}
		}
		if err != nil && !errors.Is(err, faultfs.ErrPowerLost) {
			t.Fatalf("cut %d, during recovery: %v", r.cuts+1, err)
		}
		r.disk.PowerCut()
		r.recoveryCuts++
		r.killed = false
		return
	}
	live := r.reopen()
	kill := r.rng.IntN(killOneIn) == 0
	if kill {
		r.disk.KillAfter(1 + r.rng.IntN(cutWithin))
	} else {
		r.disk.CutAfter(1 + r.rng.IntN(cutWithin))
	}
	work := make(chan store.Message, 1<<16)
	for _, m := range live {
		work <- m
	}
	var producers, settler sync.WaitGroup
	for p := range powerProducers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			r.produce(p, work)
		}()
	}
	settler.Add(1)
	go func() {
		defer settler.Done()
		r.settle(work)
	}()
	producers.Wait()
	close(work)
	settler.Wait()
	switch {
	case kill && r.disk.Kills() != r.kills+1:
		t.Fatalf("the producers stopped without the kill (%d kills)", r.disk.Kills())
	case !kill && r.disk.Cuts() != r.cuts+1:
		t.Fatalf("the producers stopped without the power cut (%d cuts)", r.disk.Cuts())
	}
	r.kills = r.disk.Kills()
	r.killed = kill
}

func (r *powerRun) open() (*store.Store, error) {
	return store.Open("/data", store.Options{FS: r.disk.FS(), SegmentBytes: 64 << 10, Logf: r.logDrop})
}

// logDrop counts what recovery logs: only Written drops, each naming its
// seq and digest (recovery runs on one goroutine, before the workers).
func (r *powerRun) logDrop(format string, args ...any) {
	if line := fmt.Sprintf(format, args...); !strings.Contains(line, "dropped seq") || !strings.Contains(line, "sha256") {
		r.t.Errorf("recovery logged %q", line)
	}
	r.logged++
}

// reopen opens the store on what the disk kept, checks every promise
// against the ledger, and returns the live messages.
func (r *powerRun) reopen() []store.Message {
	t := r.t
	s, err := r.open()
	if err != nil {
		t.Fatalf("after cut %d: Open: %v", r.cuts, err)
	}
	q, live, err := s.OpenQueue(queuePath, r.d)
	if err != nil {
		t.Fatalf("after cut %d: the queue does not open: %v", r.cuts, err)
	}
	r.s, r.q = s, q
	st := q.Stats()
	r.dropped += st.DroppedAtRecovery
	r.torn += st.TornTails
	back := make(map[string]bool, len(live))
	for _, m := range live {
		topic := string(m.Meta.Topic)
		e := r.ledger[topic]
		switch {
		case e == nil:
			t.Fatalf("after cut %d: seq %d (topic %q) was never admitted", r.cuts, m.Seq, topic)
		case back[topic]:
			t.Fatalf("after cut %d: %q is live twice", r.cuts, topic)
		case e.quarantined:
			t.Fatalf("after cut %d: quarantined %q is live again", r.cuts, topic)
		case m.Digest != e.digest || m.BodyLen != uint64(e.size):
			t.Fatalf("after cut %d: %q came back as %x/%d, admitted as %x/%d", r.cuts, topic, m.Digest, m.BodyLen, e.digest, e.size)
		}
		r.requireIntact(m, e)
		back[topic] = true
	}
	for topic, e := range r.ledger {
		if back[topic] || e.touched {
			continue
		}
		if r.survivors[topic] && !(r.volatile && !r.killed && r.d == store.Written) {
			t.Fatalf("after cut %d: %q survived the previous cut and was lost in this one", r.cuts, topic)
		}
		if e.certified {
			if r.d == store.Flushed {
				t.Fatalf("after cut %d: %q, seq %d (%d bytes, sha256 %x), was certified Flushed and is lost; queue %+v",
					r.cuts, topic, e.seq, e.size, e.digest, q.Stats())
			}
			r.lost++
		}
	}
	for topic, e := range r.ledger {
		if !back[topic] && !e.quarantined {
			delete(r.ledger, topic) // gone for good: settled, never admitted, or lost by Written
		}
	}
	for topic := range back {
		if e := r.ledger[topic]; e.certified {
			r.checked++
		}
	}
	r.survivors, r.volatile = back, r.killed
	return live
}

// requireIntact reads the body back through the verifying reader.
func (r *powerRun) requireIntact(m store.Message, e *sent) {
	rc, err := r.q.OpenBody(m.Seq)
	if err != nil {
		r.t.Fatalf("after cut %d: OpenBody(%d): %v", r.cuts, m.Seq, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil || n != int64(e.size) || [32]byte(h.Sum(nil)) != e.digest {
		r.t.Fatalf("after cut %d: seq %d read back %d bytes (%v), admitted %d", r.cuts, m.Seq, n, err, e.size)
	}
}

// sharedBodies are bodies every producer sends now and then, so payload
// dedup and refcounts live through the cuts: inline, small file, spilled.
var sharedBodies = [][]byte{bodyOf(900, 700), bodyOf(901, 20<<10), bodyOf(902, 150<<10)}

// produce admits messages until the power is gone, recording each in the
// ledger before Admit and certifying it after.
func (r *powerRun) produce(p int, work chan<- store.Message) {
	rng := rand.New(rand.NewPCG(uint64(r.epochNo), uint64(p)))
	for n := 0; ; n++ {
		body := sharedBodies[rng.IntN(len(sharedBodies))]
		if rng.IntN(6) != 0 {
			body = make([]byte, int(1+rng.ExpFloat64()*6000)%(200<<10)+1)
			for i := range body {
				body[i] = byte(rng.Uint32())
			}
		}
		topic := fmt.Sprintf("e%d.p%d.%d", r.epochNo, p, n)
		e := &sent{digest: sha256.Sum256(body), size: len(body)}
		r.mu.Lock()
		r.ledger[topic] = e
		r.attempted++
		r.mu.Unlock()
		m, err := tryAdmitMeta(r.q, body, store.Meta{Topic: []byte(topic), HasTopic: true})
		if err != nil {
			r.requirePowerLost("Admit", err)
			return
		}
		r.mu.Lock()
		e.certified = true
		e.seq = m.Seq
		r.certified++
		r.mu.Unlock()
		work <- m
	}
}

// settle takes live messages as they come: settles 5 in 8, quarantines 1
// in 16 and leaves the rest live with an ATTEMPT recorded.
func (r *powerRun) settle(work <-chan store.Message) {
	rng := rand.New(rand.NewPCG(uint64(r.epochNo), 99))
	dead := false
	for m := range work {
		if dead {
			continue
		}
		r.mu.Lock()
		e := r.ledger[string(m.Meta.Topic)]
		r.mu.Unlock()
		var err error
		switch k := rng.IntN(16); {
		case k < 10:
			r.mu.Lock()
			e.touched = true
			r.mu.Unlock()
			if err = r.q.Settle(m.Seq); err == nil {
				r.mu.Lock()
				r.settled++
				r.mu.Unlock()
			}
		case k == 10 && r.cuts >= r.quarantineFrom:
			r.mu.Lock()
			e.touched = true
			r.mu.Unlock()
			if err = r.q.Quarantine(m.Seq, "power-loss test"); err == nil {
				r.mu.Lock()
				e.quarantined = true
				r.quarantined++
				r.mu.Unlock()
			}
		default:
			err = r.q.Attempt(m.Seq, m.Attempts+1)
		}
		if err != nil {
			r.requirePowerLost("settling", err)
			dead = true
		}
	}
}

func (r *powerRun) requirePowerLost(op string, err error) {
	if !errors.Is(err, faultfs.ErrPowerLost) {
		r.t.Errorf("%s failed for another reason than the power cut: %v", op, err)
	}
}

// tryAdmitMeta streams body into q in 16 KiB writes and admits it with
// meta, returning the first error.
func tryAdmitMeta(q *store.Queue, body []byte, meta store.Meta) (store.Message, error) {
	b, err := q.NewBody()
	if err != nil {
		return store.Message{}, err
	}
	for rest := body; len(rest) > 0; rest = rest[min(len(rest), 16<<10):] {
		if _, err := b.Write(rest[:min(len(rest), 16<<10)]); err != nil {
			b.Abort()
			return store.Message{}, err
		}
	}
	return q.Admit(b, meta)
}
