package brokercrash

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const (
	// producerCount producers publish at once: half by exchange, half
	// one-way.
	producerCount = 4
	// maxEpochCertificates: a broker is killed after 1..40 new certificates...
	maxEpochCertificates = 40
	// maxKillDelay: ...and a further random 0..20 ms, so the kill lands
	// anywhere in a body, a commit or a settlement.
	maxKillDelay = 20 * time.Millisecond
	// startupKillOneIn: one start in six is killed before it is ready, at a
	// random point of its start-up (recovery included).
	startupKillOneIn = 6
	// progressTimeout bounds the wait for an epoch's certificates.
	progressTimeout = 30 * time.Second
)

// TestKilledBrokerKeepsEveryStoredMessage is issue 6's crash test: a
// `weida broker` child serving a Flushed queue is SIGKILLed at random
// points while producers publish and a consumer settles, and restarted on
// the same store; at the end every message certified Stored is delivered
// at least once and intact, and every start of the broker was clean.
// Written runs the same test: it promises to survive a process crash,
// which is exactly what SIGKILL is.
//
// WEIDA_CRASH_KILLS=25 is the full run (the default, 3, keeps the test
// command fast); WEIDA_CRASH_SEED replays a run's random choices.
func TestKilledBrokerKeepsEveryStoredMessage(t *testing.T) {
	kills, seed := crashKills(t), crashSeed(t)
	t.Logf("seed %d (%s=%d replays the choices), %d kills per durability", seed, seedEnv, seed, kills)
	for _, durability := range []string{"flushed", "written"} {
		t.Run(durability, func(t *testing.T) { crashAndRecover(t, durability, kills, seed) })
	}
}

// crashAndRecover is one run of the crash test on a queue of durability.
func crashAndRecover(t *testing.T, durability string, kills int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0))
	began := time.Now()
	site := newBrokerSite(t, durability)
	l := newLedger()

	child := site.start(t)
	site.awaitAddress(t, child)
	ctx, stopProducing := context.WithCancel(context.Background())
	defer stopProducing()
	producersStopped := startProducers(ctx, t, site.address, producerCount, seed, l)
	stopSettler := startSettler(t, site.address, seed, l)

	startupKills := 0
	for k := 1; k <= kills; k++ {
		if k > 1 {
			child = site.start(t)
			if rng.IntN(startupKillOneIn) == 0 {
				// The delay is the kill point, not a synchronisation: up to
				// the time the last clean start took to print its address.
				killAfter(t, child, time.Duration(rng.Int64N(int64(site.startup)+1)))
				startupKills++
				continue
			}
			site.awaitAddress(t, child)
		}
		awaitCertified(t, l, l.certifiedCount()+1+rng.IntN(maxEpochCertificates))
		killAfter(t, child, time.Duration(rng.Int64N(int64(maxKillDelay)+1)))
		if v := l.violations.List(); len(v) > 0 {
			t.Fatalf("after kill %d: %s", k, strings.Join(v[:min(len(v), 10)], "\n"))
		}
	}
	stopProducing()
	producersStopped()
	stopSettler()

	final := site.start(t)
	site.awaitAddress(t, final)
	drained := drain(t, site.address, l)
	final.stop(t)
	requireCleanStderr(t, final)

	for _, problem := range l.audit() {
		t.Error(problem)
	}
	t.Logf("%d kills (%d during start-up) in %v; %s; the final drain took %d message(s)",
		kills, startupKills, time.Since(began).Round(time.Millisecond), l.figures(), drained)
}

// killAfter SIGKILLs the child once delay has passed and checks what it
// wrote to stderr until then.
func killAfter(t *testing.T, c *brokerChild, delay time.Duration) {
	t.Helper()
	timer := time.NewTimer(delay)
	<-timer.C
	c.Kill(t)
	requireCleanStderr(t, c)
}

// awaitCertified waits until target messages were certified in all.
func awaitCertified(t *testing.T, l *ledger, target int) {
	t.Helper()
	timeout := time.NewTimer(progressTimeout)
	defer timeout.Stop()
	for l.certifiedCount() < target {
		select {
		case <-l.progress:
		case <-timeout.C:
			v := l.violations.List()
			t.Fatalf("only %d of %d messages certified within %v: %s\n%s", l.certifiedCount(), target, progressTimeout,
				l.figures(), strings.Join(v[:min(len(v), 10)], "\n"))
		}
	}
}

// requireCleanStderr fails on any stderr line a clean broker does not write.
func requireCleanStderr(t *testing.T, c *brokerChild) {
	t.Helper()
	if bad := c.unexpectedStderr(); len(bad) > 0 {
		t.Fatalf("the broker wrote to stderr:\n%s", c.Stderr.Text())
	}
}
