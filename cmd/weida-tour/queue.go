package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	weida "github.com/weida-go/weida/core"
)

// queueJobs are the messages the queue scene's producer sends.
var queueJobs = []string{"resize photo 1", "resize photo 2", "resize photo 3"}

// levelNames names the levels the queue scene orders, as PROTOCOL.md does.
var levelNames = map[uint64]string{
	weida.Accepted:   "ACCEPTED",
	weida.Stored:     "STORED",
	weida.Replicated: "REPLICATED",
	weida.Processed:  "PROCESSED",
}

// queueOrder is what the producer orders on every message: the broker's
// own certificates and the consumer's settlement, relayed one hop.
var queueOrder = weida.ReportOrder{Levels: []uint64{weida.Accepted, weida.Stored, weida.Processed}}

// sentJob is one message the producer sent and what its report showed.
type sentJob struct {
	body    string
	cursors *weida.Cursors
	seen    map[uint64]uint64 // levels printed so far
}

// queueScene is what the queue scene runs against.
type queueScene struct {
	url string
	// stored says the broker keeps the queue written or flushed, so it
	// must certify STORED.
	stored bool
	// producer and consumer are the identities the two present (nil:
	// anonymous), for a broker whose access rules list their keys.
	producer, consumer *weida.Identity
}

// presenting is the endpoint options that present id, if any.
func presenting(id *weida.Identity) []weida.EndpointOption {
	if id == nil {
		return nil
	}
	return []weida.EndpointOption{weida.WithClientIdentity(id)}
}

// tourQueue plays producer and consumer against the broker's queue at q.url.
// The consumer grants no credit until the producer has sent everything, so
// the queue visibly holds the messages (ACCEPTED, and STORED when stored,
// from the broker) before the consumer's PROCESSED arrives for each. It
// checks every message's report ends at exactly the levels someone
// reported, at the body's length.
func tourQueue(ctx context.Context, s story, q queueScene) error {
	url, stored := q.url, q.stored
	if stored {
		s.say("queue at %s, persistent: the broker certifies STORED", short(url))
	} else {
		s.say("queue at %s, in memory: the broker certifies ACCEPTED only", short(url))
	}
	consumerSide, err := newParty("consumer")
	if err != nil {
		return err
	}
	defer consumerSide.close()
	consumer := consumerSide.rt.Subscriber(weida.TrustByAddress(), presenting(q.consumer)...)
	if err := consumer.Connect(ctx, url); err != nil {
		return fmt.Errorf("queue: the consumer's connect: %w", err)
	}
	if err := consumer.Subscribe(ctx, ""); err != nil {
		return fmt.Errorf("queue: subscribe: %w", err)
	}
	s.say("consumer subscribes, with no credit yet: the queue delivers it nothing")

	producerSide, err := newParty("producer")
	if err != nil {
		return err
	}
	defer producerSide.close()
	producer := producerSide.rt.Pusher(weida.TrustByAddress(), presenting(q.producer)...)
	if err := producer.Connect(ctx, url); err != nil {
		return fmt.Errorf("queue: the producer's connect: %w", err)
	}
	jobs, err := queueSend(ctx, s, producer)
	defer func() {
		for _, j := range jobs {
			_ = j.cursors.Close()
		}
	}()
	if err != nil {
		return err
	}
	held := []uint64{weida.Accepted}
	if stored {
		held = append(held, weida.Stored)
	}
	for _, j := range jobs {
		if err := j.await(ctx, s, held...); err != nil {
			return err
		}
	}

	if err := consumer.Grant(ctx, uint64(len(jobs))); err != nil {
		return fmt.Errorf("queue: grant: %w", err)
	}
	s.say("consumer grants credit for %d messages", len(jobs))
	for range jobs {
		if err := queueConsumeOne(ctx, s, consumer, jobs); err != nil {
			return err
		}
	}
	for _, j := range jobs {
		if err := j.checkFinal(held); err != nil {
			return err
		}
	}
	s.say("every report ended at exactly %s, each at its body's length; no level nobody reported",
		strings.Join(namesOf(append(held, weida.Processed)), ", "))
	return nil
}

// queueSend sends every job as a one-way transfer ordering queueOrder.
func queueSend(ctx context.Context, s story, producer *weida.Pusher) ([]*sentJob, error) {
	var jobs []*sentJob
	for _, body := range queueJobs {
		cursors, err := producer.SendReporting(ctx, []byte(body), queueOrder)
		if err != nil {
			return jobs, fmt.Errorf("queue: send %q: %w", body, err)
		}
		jobs = append(jobs, &sentJob{body: body, cursors: cursors, seen: map[uint64]uint64{}})
		s.say("producer sends %q (%d bytes), a one-way transfer ordering %s",
			body, len(body), strings.Join(namesOf(queueOrder.Levels), ", "))
	}
	return jobs, nil
}

// queueConsumeOne receives one delivery, checks the producer has not heard
// PROCESSED for it yet, settles it and waits for the producer's report to
// end, which it does once the consumer's PROCESSED was relayed.
func queueConsumeOne(ctx context.Context, s story, consumer *weida.Subscriber, jobs []*sentJob) error {
	body, meta, report, err := consumer.RecvReporting(ctx, 1<<10)
	if err != nil {
		return fmt.Errorf("queue: receive: %w", err)
	}
	i := slices.IndexFunc(jobs, func(j *sentJob) bool { return j.body == string(body) })
	switch {
	case i < 0:
		return fmt.Errorf("queue: the consumer received %q, which nobody sent", body)
	case report == nil:
		return fmt.Errorf("queue: the delivery of %q ordered no report, want PROCESSED", body)
	}
	if attempt, _ := meta.DeliveryAttempt(); attempt != 1 {
		return fmt.Errorf("queue: %q came at delivery attempt %d, want its first", body, attempt)
	}
	j := jobs[i]
	if off, ok := j.cursors.Offset(weida.Processed); ok {
		return fmt.Errorf("queue: the producer heard PROCESSED at %d for %q before the consumer reported it", off, body)
	}
	s.say("consumer gets %q (first delivery), handles it and reports PROCESSED at %d", body, len(body))
	if err := report.Report(weida.Processed, uint64(len(body))); err != nil {
		return fmt.Errorf("queue: report PROCESSED for %q: %w", body, err)
	}
	if err := report.Finish(); err != nil {
		return fmt.Errorf("queue: finish the report for %q: %w", body, err)
	}
	return j.awaitEnd(ctx, s)
}

// await prints j's levels as they arrive until every one of want did.
func (j *sentJob) await(ctx context.Context, s story, want ...uint64) error {
	for !j.has(want) {
		snap, more, err := j.cursors.Changed(ctx)
		if err != nil {
			return fmt.Errorf("queue: waiting for %s on %q: %w", strings.Join(namesOf(want), ", "), j.body, err)
		}
		if !more {
			return fmt.Errorf("queue: the report on %q ended without %s", j.body, strings.Join(namesOf(want), ", "))
		}
		j.tell(s, snap)
	}
	return nil
}

// awaitEnd prints j's levels as they arrive until its report ends.
func (j *sentJob) awaitEnd(ctx context.Context, s story) error {
	for {
		snap, more, err := j.cursors.Changed(ctx)
		if err != nil {
			return fmt.Errorf("queue: waiting for the report on %q to end: %w", j.body, err)
		}
		if !more {
			return nil
		}
		j.tell(s, snap)
	}
}

// tell prints the levels of snap that are new or moved, lowest first.
func (j *sentJob) tell(s story, snap map[uint64]uint64) {
	for _, level := range slices.Sorted(maps.Keys(snap)) {
		if off, ok := j.seen[level]; ok && off == snap[level] {
			continue
		}
		j.seen[level] = snap[level]
		s.say("producer hears for %q: %s at %d", j.body, levelName(level), snap[level])
	}
}

func (j *sentJob) has(levels []uint64) bool {
	for _, l := range levels {
		if _, ok := j.seen[l]; !ok {
			return false
		}
	}
	return true
}

// checkFinal compares j's ended report with what was reported: the held
// levels by the broker, PROCESSED by the consumer, each at the body's
// length, and nothing else.
func (j *sentJob) checkFinal(held []uint64) error {
	want := map[uint64]uint64{weida.Processed: uint64(len(j.body))}
	for _, l := range held {
		want[l] = uint64(len(j.body))
	}
	if got := j.cursors.Snapshot(); !maps.Equal(got, want) {
		return fmt.Errorf("queue: the report on %q ended at %s, want %s", j.body, levelsText(got), levelsText(want))
	}
	return nil
}

func levelName(level uint64) string {
	if name, ok := levelNames[level]; ok {
		return name
	}
	return fmt.Sprintf("level %d", level)
}

func namesOf(levels []uint64) []string {
	names := make([]string, len(levels))
	for i, l := range levels {
		names[i] = levelName(l)
	}
	return names
}

// levelsText reads a snapshot as "ACCEPTED 14, PROCESSED 14".
func levelsText(snap map[uint64]uint64) string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(snap)) {
		parts = append(parts, fmt.Sprintf("%s %d", levelName(l), snap[l]))
	}
	if parts == nil {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
