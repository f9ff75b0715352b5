package clustercrash

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/internal/crashkit"
)

const (
	// maxEpochCertificates: the leader is killed after 1..200 new
	// certificates...
	maxEpochCertificates = 200
	// maxKillDelay: ...and a further random 0..20 ms, so the kill lands
	// anywhere in an admission, a delivery or a settlement.
	maxKillDelay = 20 * time.Millisecond
	// progressTimeout bounds every wait for certificates or deliveries.
	progressTimeout = 60 * time.Second
)

// TestKilledLeaderLosesNothingCertified is issue 19's failover test: the
// leader of a 3-member cluster is SIGKILLed under load and restarted, and
// at the end every certified message was delivered, nothing else was,
// and delivery_attempt never went backwards. WEIDA_CLUSTER_KILLS=20 is
// the heavy run (build/cluster-chaos.sh).
func TestKilledLeaderLosesNothingCertified(t *testing.T) {
	kills, seed := crashkit.EnvInt(t, killsEnv, defaultKills), runSeed(t)
	t.Logf("seed %d (%s=%d replays the choices), %d kills", seed, seedEnv, seed, kills)
	rng := rand.New(rand.NewPCG(seed, 0))
	began := time.Now()
	site := newClusterSite(t, queueDurability(t))
	site.startAll(t)
	l := newLedger()
	ctx, stopProducing := context.WithCancel(context.Background())
	defer stopProducing()
	producerStopped := startProducer(ctx, t, site, seed, l)
	stopConsumer := startConsumer(t, site, l)

	var failovers []time.Duration
	for k := 1; k <= kills; k++ {
		certified, _ := l.counts()
		awaitCertified(t, l, certified+1+rng.IntN(maxEpochCertificates))
		delay := time.NewTimer(time.Duration(rng.Int64N(int64(maxKillDelay) + 1)))
		<-delay.C // the delay is the kill point, not a synchronisation
		lead, _ := site.leaders.leader()
		victim := site.byKey(lead.key)
		killedAt := time.Now()
		victim.child.Kill(t)
		requireHealthy(t, victim.child)
		site.timeline.add("test: SIGKILLed member%d, leader of term %d", victim.index+1, lead.term)
		failovers = append(failovers, awaitFailover(t, l, lead.term, killedAt))
		t.Logf("kill %d: member %d, leader of term %d, at %s; the next leader's first confirm %v later",
			k, victim.index+1, lead.term, killedAt.UTC().Format("15:04:05.000"), failovers[len(failovers)-1].Round(time.Millisecond))
		site.timeline.report(t, k, killedAt, failovers[len(failovers)-1], lead.term)
		site.start(t, victim)
		if err := victim.child.awaitAddress(victim.url()); err != nil {
			t.Fatalf("after kill %d: %v", k, err)
		}
		if v := l.violations.List(); len(v) > 0 {
			t.Fatalf("after kill %d: %s", k, strings.Join(v[:min(len(v), 10)], "\n"))
		}
	}
	stopProducing()
	producerStopped()
	site.timeline.dumpAll(t)
	awaitEveryCertifiedDelivered(t, l)
	stopConsumer()
	stopMembers(t, site)
	for _, problem := range l.audit() {
		t.Error(problem)
	}
	p50, p99 := percentile(failovers, 50), percentile(failovers, 99)
	t.Logf("%d kills in %v; failover (kill to the next leader's first confirm) p50 %v, p99 %v, max %v; %d leader-change lines; %s",
		kills, time.Since(began).Round(time.Millisecond), p50, p99, slices.Max(failovers), site.leaders.changeLines(), l.figures())
}

// awaitCertified waits until target messages were certified in all.
func awaitCertified(t *testing.T, l *ledger, target int) {
	t.Helper()
	awaitLedger(t, l, func() bool { c, _ := l.counts(); return c >= target }, "certified messages")
}

// awaitFailover waits for the first confirm from a leader of a term above
// the killed one's and returns the time since the kill.
func awaitFailover(t *testing.T, l *ledger, killedTerm uint64, killedAt time.Time) time.Duration {
	t.Helper()
	var first time.Time
	awaitLedger(t, l, func() bool {
		var ok bool
		first, ok = l.firstCertAfter(killedTerm)
		return ok
	}, "a confirm from the next leader")
	return first.Sub(killedAt)
}

// awaitEveryCertifiedDelivered waits until the consumer received every
// certified message, failing once nothing moves for progressTimeout.
func awaitEveryCertifiedDelivered(t *testing.T, l *ledger) {
	t.Helper()
	awaitLedger(t, l, func() bool { _, undelivered := l.counts(); return undelivered == 0 }, "every certified message delivered")
}

// awaitLedger waits until done holds, re-checking at every certificate or
// delivery; it fails when progressTimeout passes without one.
func awaitLedger(t *testing.T, l *ledger, done func() bool, what string) {
	t.Helper()
	timeout := time.NewTimer(progressTimeout)
	defer timeout.Stop()
	for !done() {
		select {
		case <-l.progress:
			timeout.Reset(progressTimeout)
		case <-timeout.C:
			v := l.violations.List()
			t.Fatalf("waiting for %s, nothing moved for %v: %s\n%s", what, progressTimeout, l.figures(),
				strings.Join(v[:min(len(v), 10)], "\n"))
		}
	}
}

// stopMembers checks every member's log, then stops each with SIGTERM
// (exit 0 required). What a member logs while the others stop around it
// (a leadership handoff to a member shutting down) is shown, not failed:
// the run's verdict is about messages.
func stopMembers(t *testing.T, site *clusterSite) {
	t.Helper()
	before := make([]int, len(site.members))
	for i, m := range site.members {
		requireHealthy(t, m.child)
		before[i] = len(m.child.Stderr.Lines())
	}
	for _, m := range site.members {
		m.child.stop(t)
	}
	for i, m := range site.members {
		if bad := m.child.badStderr(); len(bad) > 0 {
			t.Logf("member %d logged while the members stopped:\n%s", i+1, strings.Join(m.child.Stderr.Lines()[before[i]:], "\n"))
		}
	}
}

// requireHealthy fails on any stderr line a healthy member does not write.
func requireHealthy(t *testing.T, c *memberChild) {
	t.Helper()
	if bad := c.badStderr(); len(bad) > 0 {
		t.Fatalf("a member wrote:\n%s\nits stderr:\n%s", strings.Join(bad, "\n"), c.Stderr.Text())
	}
}

// percentile is the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100
	return s[max(rank, 1)-1]
}
