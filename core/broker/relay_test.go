package broker

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// BROKER.md §17 cursors, §10 relay (decision 0029 §4.1-§4.5).

func TestOneWayProducerOrderingAcceptedGetsOneRecordAtTheLength(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	c := p.pushReporting(t, "", []byte("eleven byte"), weida.Accepted)
	if got := finalReport(t, c); !maps.Equal(got, map[uint64]uint64{weida.Accepted: 11}) {
		t.Fatalf("final report %v, want exactly Accepted at 11", got)
	}
}

func TestExchangeGetsKey8AndTheCursorItOrdered(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	in, cursors := p.exchange(t, weida.ReportOrder{Levels: []uint64{weida.Accepted}}, []byte("abc"))
	if body, _ := in.Collect(16); len(body) != 0 {
		t.Fatalf("the confirm carries a payload %q", body)
	}
	if got := finalReport(t, cursors); !maps.Equal(got, map[uint64]uint64{weida.Accepted: 3}) {
		t.Fatalf("final report %v, want Accepted at 3", got)
	}
}

func TestAnExchangeOrderingNothingGetsKey8Only(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	// exchange checks the confirm's key 8.
	if _, cursors := p.exchange(t, weida.ReportOrder{}, []byte("abc")); cursors != nil {
		t.Fatal("an exchange that ordered nothing has a report to read")
	}
}

func TestARefusedAdmissionReportsNothing(t *testing.T) {
	cfg := queues("/jobs")
	cfg.QueueBytes = PerMessageOverhead - 1 // nothing fits
	tb := startBroker(t, cfg)
	p := newProducer(t, tb.binding.URL("/jobs"))
	c := p.pushReporting(t, "", []byte("x"), weida.Accepted, weida.Processed)
	tb.await(t, "/jobs", "the refusal", func(q *queue) bool { return q.refused.Load() == 1 })
	p.rt.Shutdown() // the report can only end with its connection: nothing will come
	if got := finalReport(t, c); len(got) != 0 {
		t.Fatalf("a refused admission reported %v", got)
	}
}

func TestAStoredOrderOnAMemoryQueueStaysSilent(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	c := p.pushReporting(t, "", []byte("abcd"), weida.Accepted, weida.Stored)
	if got := finalReport(t, c); !maps.Equal(got, map[uint64]uint64{weida.Accepted: 4}) {
		t.Fatalf("final report %v, want Accepted only: a memory queue never says Stored", got)
	}
	if s := tb.stats(t, "/jobs"); s.Ready != 1 {
		t.Fatalf("stats %+v, want the message queued all the same", s)
	}
}

func TestProcessedIsRelayedAtTheProducersOffset(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	cons := newConsumer(t, url, "", 1)
	body := []byte("payload of 21 bytes..")
	c := p.pushReporting(t, "", body, weida.Accepted, weida.Processed)
	got := cons.recv(t)
	if levels := got.report.Levels(); !slices.Equal(levels, []uint64{weida.Processed}) {
		t.Fatalf("the delivery ordered %v, want [Processed]", levels)
	}
	got.settle(t)
	want := map[uint64]uint64{weida.Accepted: uint64(len(body)), weida.Processed: uint64(len(body))}
	if final := finalReport(t, c); !maps.Equal(final, want) {
		t.Fatalf("final report %v, want %v", final, want)
	}
}

func TestAnUnreportedLevelStaysSilent(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	cons := newConsumer(t, url, "", 1)
	c := p.pushReporting(t, "", []byte("abc"), weida.Accepted, weida.Processed)
	awaitLevel(t, c, weida.Accepted)
	cons.recv(t) // the consumer never says Processed, and goes
	_ = cons.Close()
	tb.await(t, "/jobs", "the requeue", func(q *queue) bool { return len(q.ready) == 1 })
	tb.Close() // the queue ends: the producer's report ends with it
	if final := finalReport(t, c); !maps.Equal(final, map[uint64]uint64{weida.Accepted: 3}) {
		t.Fatalf("final report %v, want Accepted only, and no error", final)
	}
}

func TestAProducerOrderingNothingGetsNoReportAndTheDeliveryStillSettles(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	cons := newConsumer(t, url, "", 1)
	if c := p.pushReporting(t, "", []byte("x")); c != nil {
		t.Fatal("an empty order handed out Cursors")
	}
	got := cons.recv(t)
	if levels := got.report.Levels(); !slices.Equal(levels, []uint64{weida.Processed}) {
		t.Fatalf("the delivery ordered %v, want [Processed]", levels)
	}
	got.settle(t)
	tb.await(t, "/jobs", "the settlement", func(q *queue) bool { return len(q.unsettled) == 0 && len(q.ready) == 0 })
}

func TestApplicationStagesAreRelayedAndStrayRecordsIgnored(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	cons := newConsumer(t, url, "", 1)
	c := p.pushReporting(t, "", []byte("0123456789"), weida.Processed, 17, 40)
	got := cons.recv(t)
	if levels := got.report.Levels(); !slices.Equal(levels, []uint64{weida.Processed, 17, 40}) {
		t.Fatalf("the delivery ordered %v, want [5 17 40]", levels)
	}
	for _, r := range []struct{ level, offset uint64 }{
		{17, 3},               // an ordered stage: relayed as is
		{40, 11},              // beyond the body: measures nothing the producer sent
		{99, 10},              // never ordered
		{weida.Accepted, 10},  // the broker's own level, not the consumer's to give
		{weida.Processed, 10}, // settles, relayed
	} {
		_ = got.report.Report(r.level, r.offset)
	}
	_ = got.report.Finish()
	want := map[uint64]uint64{weida.Processed: 10, 17: 3}
	if final := finalReport(t, c); !maps.Equal(final, want) {
		t.Fatalf("final report %v, want %v", final, want)
	}
}

func TestAClaimNeverTravelsTwoQueues(t *testing.T) {
	tb := startBroker(t, queues("/a", "/b"))
	p := newProducer(t, tb.binding.URL("/a"))
	fromA := newConsumer(t, tb.binding.URL("/a"), "", 1)
	intoB := newProducer(t, tb.binding.URL("/b"))
	fromB := newConsumer(t, tb.binding.URL("/b"), "", 1)

	origin := p.pushReporting(t, "", []byte("hop"), weida.Processed, 17)
	// A bridge takes the message from /a and sends it on to /b, ordering
	// the same levels there; /b's consumer reports both.
	atA := fromA.recv(t)
	downstream := intoB.pushReporting(t, "", atA.body, weida.Processed, 17)
	atB := fromB.recv(t)
	_ = atB.report.Report(17, 3)
	atB.settle(t)
	if got := finalReport(t, downstream); got[17] != 3 {
		t.Fatalf("one queue away the stage arrives: %v", got)
	}
	// The bridge settles what it took from /a. Stage 17 reached the bridge
	// only as /b's relay; the broker relays nothing it did not read from
	// its own delivery's report, so /a's producer never sees it.
	atA.settle(t)
	if final := finalReport(t, origin); !maps.Equal(final, map[uint64]uint64{weida.Processed: 3}) {
		t.Fatalf("final report %v, want Processed only: a relayed claim crossed a second queue", final)
	}
}

// fakeReporter records what the relay writes.
type fakeReporter struct {
	levels   []uint64
	reported map[uint64]uint64
	finished int
}

func (f *fakeReporter) Levels() []uint64 { return f.levels }
func (f *fakeReporter) Report(level, offset uint64) error {
	if f.finished > 0 {
		return errors.New("finished")
	}
	f.reported[level] = offset
	return nil
}
func (f *fakeReporter) Finish() error { f.finished++; return nil }

func TestRelayRules(t *testing.T) {
	snap := map[uint64]uint64{weida.Processed: 8, 17: 2, 20: 9, weida.Accepted: 8}
	cases := []struct {
		name      string
		ordered   []uint64
		reencoded bool
		order     []uint64          // what the delivery orders
		relayed   map[uint64]uint64 // what reaches the producer
	}{
		{"processed only", []uint64{weida.Processed}, false, []uint64{5}, map[uint64]uint64{5: 8}},
		{"stages and processed", []uint64{weida.Accepted, 5, 17, 20}, false, []uint64{5, 17, 20}, map[uint64]uint64{5: 8, 17: 2}},
		{"broker levels are never relayed", []uint64{weida.Accepted, weida.Stored}, false, []uint64{5}, map[uint64]uint64{}},
		{"a re-encoded body relays no offset", []uint64{5, 17}, true, []uint64{5, 17}, map[uint64]uint64{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeReporter{levels: c.ordered, reported: map[uint64]uint64{}}
			p := reportTo(f)
			if got := p.deliveryOrder(); !slices.Equal(got, c.order) {
				t.Fatalf("delivery order %v, want %v", got, c.order)
			}
			// 20 at 9 is beyond the 8-byte body and never relayed.
			p.relay(snap, &message{bodyLen: 8, reencoded: c.reencoded})
			if !reflect.DeepEqual(f.reported, c.relayed) {
				t.Fatalf("relayed %v, want %v", f.reported, c.relayed)
			}
			// Asked to finish while its admission still runs, the report
			// waits for it (the certificate comes first), then ends once.
			p.finish()
			if f.finished != 0 {
				t.Fatal("the report ended before its admission did")
			}
			p.admissionEnded()
			p.finish()
			if f.finished != 1 {
				t.Fatalf("finished %d times, want once", f.finished)
			}
		})
	}
	var none *producerReport // a producer that ordered nothing
	if got := none.deliveryOrder(); !slices.Equal(got, []uint64{weida.Processed}) {
		t.Fatalf("delivery order without a producer order %v, want [5]", got)
	}
	none.relay(snap, &message{bodyLen: 8})
	none.finish()
	none.admissionEnded()
}

func TestARelayedRecordIsTheConsumersOwnOffset(t *testing.T) {
	_, url := startJobs(t)
	p := newProducer(t, url)
	cons := newConsumer(t, url, "", 2)
	c := p.pushReporting(t, "", []byte("0123456789"), weida.Processed)
	first := cons.recv(t)
	_ = first.report.Report(weida.Processed, 4) // a partial claim: copied as is, settles nothing
	_ = first.report.Finish()
	if off := awaitLevel(t, c, weida.Processed); off != 4 {
		t.Fatalf("the producer saw Processed at %d, want the consumer's 4: the broker never rounds a claim up", off)
	}
	second := cons.recv(t)
	if second.attempt != 2 {
		t.Fatalf("redelivery attempt %d, want 2", second.attempt)
	}
	second.settle(t)
	if final := finalReport(t, c); !maps.Equal(final, map[uint64]uint64{weida.Processed: 10}) {
		t.Fatalf("final report %v, want Processed at 10", final)
	}
}
