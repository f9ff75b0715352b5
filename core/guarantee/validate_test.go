package guarantee

import (
	"testing"
	"time"
)

func TestValidateAcceptsCoreAndEveryValidSuperset(t *testing.T) {
	valid := map[string]Set{
		"core":                       {},
		"at most once":               {Delivery: AtMostOnce},
		"at least once":              {Delivery: AtLeastOnce},
		"accepted":                   {Acknowledgement: Accepted},
		"stored, no axis":            {Acknowledgement: Stored},
		"stored written":             {Acknowledgement: Stored, Durability: Written},
		"stored flushed":             {Acknowledgement: Stored, Durability: Flushed},
		"replicated, no axes":        {Acknowledgement: Replicated},
		"replicated 2":               {Acknowledgement: Replicated, Replicas: 2},
		"replicated 3 flushed":       {Acknowledgement: Replicated, Replicas: 3, Durability: Flushed},
		"processed":                  {Acknowledgement: Processed},
		"detect":                     {Ordering: PerProducerDetect},
		"reassemble":                 {Ordering: PerProducerReassemble},
		"per key":                    {Ordering: PerKey},
		"total":                      {Ordering: Total},
		"bounded 1ms":                {Deduplication: DedupBounded, DedupWindow: time.Millisecond},
		"bounded 1h":                 {Deduplication: DedupBounded, DedupWindow: time.Hour},
		"durable dedup":              {Deduplication: DedupDurable},
		"reject":                     {Backpressure: Reject},
		"drop":                       {Backpressure: Drop},
		"spill":                      {Backpressure: Spill},
		"coalesce":                   {Backpressure: Coalesce},
		"coalesce with detect":       {Backpressure: Coalesce, Ordering: PerProducerDetect},
		"reassemble with drop":       {Backpressure: Drop, Ordering: PerProducerReassemble},
		"stable naming":              {ProducerNaming: NamingStable},
		"control isolated":           {ControlIsolated: true},
		"ordering and bounded dedup": {Ordering: PerProducerReassemble, Deduplication: DedupBounded, DedupWindow: 30 * time.Second},
	}
	for name, s := range valid {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: Validate(%v) = %q, want nil", name, s, err)
		}
	}
}

func TestValidateRefusesEachInvalidCombination(t *testing.T) {
	tests := []struct {
		name string
		set  Set
		want string
	}{
		{"unknown delivery", Set{Delivery: Delivery(3)},
			"guarantee set: delivery Delivery(3) is not a known level"},
		{"unknown acknowledgement", Set{Acknowledgement: Acknowledgement(6)},
			"guarantee set: acknowledgement Acknowledgement(6) is not a known level"},
		{"unknown durability", Set{Acknowledgement: Stored, Durability: Durability(3)},
			"guarantee set: durability Durability(3) is not a known level"},
		{"unknown ordering", Set{Ordering: Ordering(5)},
			"guarantee set: ordering Ordering(5) is not a known level"},
		{"unknown deduplication", Set{Deduplication: Deduplication(3)},
			"guarantee set: deduplication Deduplication(3) is not a known level"},
		{"unknown backpressure", Set{Backpressure: Backpressure(5)},
			"guarantee set: backpressure Backpressure(5) is not a known level"},
		{"unknown producer naming", Set{ProducerNaming: ProducerNaming(2)},
			"guarantee set: producer naming ProducerNaming(2) is not a known level"},

		{"acknowledgement below core", Set{Acknowledgement: AckNone},
			"guarantee set: acknowledgement None is below core (TransportReceipt); a configured set may only be a superset of core"},

		{"durability with core acknowledgement", Set{Durability: Written},
			"guarantee set: durability Written requires acknowledgement Stored or Replicated, not TransportReceipt"},
		{"durability with accepted", Set{Acknowledgement: Accepted, Durability: Flushed},
			"guarantee set: durability Flushed requires acknowledgement Stored or Replicated, not Accepted"},
		{"durability with processed", Set{Acknowledgement: Processed, Durability: Written},
			"guarantee set: durability Written requires acknowledgement Stored or Replicated, not Processed"},

		{"replicas with stored", Set{Acknowledgement: Stored, Replicas: 3},
			"guarantee set: replicas 3 requires acknowledgement Replicated, not Stored"},
		{"replicas with core acknowledgement", Set{Replicas: 2},
			"guarantee set: replicas 2 requires acknowledgement Replicated, not TransportReceipt"},
		{"one replica", Set{Acknowledgement: Replicated, Replicas: 1},
			"guarantee set: replicas 1 is below the minimum of 2 (the leader counts as one)"},
		{"negative replicas", Set{Acknowledgement: Replicated, Replicas: -2},
			"guarantee set: replicas -2 is below the minimum of 2 (the leader counts as one)"},

		{"bounded without window", Set{Deduplication: DedupBounded},
			"guarantee set: deduplication Bounded requires a positive dedup window, got 0s"},
		{"bounded with negative window", Set{Deduplication: DedupBounded, DedupWindow: -time.Second},
			"guarantee set: deduplication Bounded requires a positive dedup window, got -1s"},
		{"window without deduplication", Set{DedupWindow: time.Second},
			"guarantee set: dedup window 1s requires deduplication Bounded, not None"},
		{"window with durable", Set{Deduplication: DedupDurable, DedupWindow: time.Minute},
			"guarantee set: dedup window 1m0s requires deduplication Bounded, not Durable"},
		{"window below a millisecond", Set{Deduplication: DedupBounded, DedupWindow: time.Microsecond},
			"guarantee set: dedup window 1µs is not a whole number of milliseconds"},
		{"window with a fraction of a millisecond", Set{Deduplication: DedupBounded, DedupWindow: 1500 * time.Microsecond},
			"guarantee set: dedup window 1.5ms is not a whole number of milliseconds"},

		{"coalesce with reassemble", Set{Ordering: PerProducerReassemble, Backpressure: Coalesce},
			"guarantee set: ordering PerProducer(reassemble) cannot be combined with backpressure Coalesce"},

		// Several faults: the first in field order is the one reported.
		{"first fault wins", Set{Acknowledgement: AckNone, Durability: Written, Replicas: 1},
			"guarantee set: acknowledgement None is below core (TransportReceipt); a configured set may only be a superset of core"},
	}
	for _, tt := range tests {
		wantRefusal(t, tt.name, tt.set.Validate(), tt.want)
	}
}
