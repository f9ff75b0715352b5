package clustercrash

import (
	"context"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// consumer takes every delivery from the current leader and settles it
// with Processed at its length. When the leader changes, or its
// connection fails, it subscribes again to the leader the members name,
// granting afresh: a new leader starts a subscription at zero credit
// (docs/CLUSTER.md §4).
type consumer struct {
	rt     *weida.Runtime
	site   *clusterSite
	ledger *ledger
}

// startConsumer consumes until the returned stop is called (it waits for
// the consumer to end).
func startConsumer(t *testing.T, site *clusterSite, l *ledger) (stop func()) {
	t.Helper()
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	c := &consumer{rt: rt, site: site, ledger: l}
	ctx, cancel := context.WithCancel(context.Background())
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		c.run(ctx)
	}()
	return func() {
		cancel()
		done.Wait()
	}
}

func (c *consumer) run(ctx context.Context) {
	for ctx.Err() == nil {
		lead, changed := c.site.leaders.leader()
		if lead.key == "" {
			select {
			case <-changed:
			case <-ctx.Done():
			}
			continue
		}
		// A subscription lasts until the members name another leader or
		// its connection fails; either way the next one starts afresh.
		subCtx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-changed:
				cancel()
			case <-subCtx.Done():
			}
		}()
		c.subscribe(subCtx, c.site.byKey(lead.key))
		cancel()
		pace := time.NewTimer(retryPace)
		select {
		case <-pace.C:
		case <-ctx.Done():
		}
		pace.Stop()
	}
}

// subscribe consumes from m until ctx ends or a receive fails.
func (c *consumer) subscribe(ctx context.Context, m *memberSite) {
	sub := c.rt.Subscriber(weida.TrustByAddress())
	defer sub.Close()
	c.site.timeline.add("consumer: subscribing at member%d", m.index+1)
	if err := subscribeAndGrant(ctx, sub, m.url()); err != nil {
		c.site.timeline.add("consumer: subscribing at member%d failed: %v", m.index+1, err)
		return
	}
	c.site.timeline.add("consumer: subscribed at member%d", m.index+1)
	for {
		body, meta, report, err := sub.RecvReporting(ctx, crashkit.MaxDelivery)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			c.ledger.receiveFailed() // a delivery cut short: it comes back
			return
		}
		topic, _ := meta.Topic()
		attempt, labelled := meta.DeliveryAttempt()
		if !labelled {
			attempt = 1
		} else if attempt < 2 {
			c.ledger.violations.Add("the delivery of %s is labelled attempt %d; a label starts at 2", topic, attempt)
		}
		c.ledger.delivered(topic, body, attempt)
		if report == nil {
			c.ledger.violations.Add("the delivery of %s ordered no report", topic)
			continue
		}
		_ = report.Report(weida.Processed, uint64(len(body))) // a lost settlement comes back as a redelivery
		_ = report.Finish()
	}
}

// subscribeAndGrant connects sub to url, subscribes to every topic and
// grants unlimited credit.
func subscribeAndGrant(ctx context.Context, sub *weida.Subscriber, url string) error {
	if err := sub.Connect(ctx, url); err != nil {
		return err
	}
	if err := sub.Subscribe(ctx, ""); err != nil {
		return err
	}
	return sub.Grant(ctx, crashkit.UnlimitedCredit)
}
