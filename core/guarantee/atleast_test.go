package guarantee

import (
	"testing"
	"time"
)

func TestAtLeast(t *testing.T) {
	stored := func(d Durability) Set { return Set{Acknowledgement: Stored, Durability: d} }
	replicated := func(n int, d Durability) Set { return Set{Acknowledgement: Replicated, Replicas: n, Durability: d} }
	bounded := func(w time.Duration) Set { return Set{Deduplication: DedupBounded, DedupWindow: w} }

	tests := []struct {
		name     string
		have     Set
		required Set
		short    string // "" = have satisfies required
	}{
		{"core satisfies core", Set{}, Set{}, ""},

		{"stronger delivery", Set{Delivery: AtLeastOnce}, Set{Delivery: AtMostOnce}, ""},
		{"weaker delivery", Set{Delivery: AtMostOnce}, Set{Delivery: AtLeastOnce},
			"delivery AtMostOnce does not reach AtLeastOnce"},
		{"core delivery under at-most-once", Set{}, Set{Delivery: AtMostOnce},
			"delivery BestEffort does not reach AtMostOnce"},

		{"accepted over core", Set{Acknowledgement: Accepted}, Set{}, ""},
		{"none under core", Set{Acknowledgement: AckNone}, Set{},
			"acknowledgement None does not reach TransportReceipt"},
		{"core under accepted", Set{}, Set{Acknowledgement: Accepted},
			"acknowledgement TransportReceipt does not reach Accepted"},
		{"processed over accepted", Set{Acknowledgement: Processed}, Set{Acknowledgement: Accepted}, ""},

		// The durability and replica axes compare on their own (SEMANTICS.md §3.1).
		{"flushed over written", stored(Flushed), stored(Written), ""},
		{"written under flushed", stored(Written), stored(Flushed),
			"durability Written does not reach Flushed"},
		{"any durability meets an unstated one", stored(Written), stored(DurabilityUnset), ""},
		{"unstated durability meets no stated one", stored(DurabilityUnset), stored(Written),
			"durability Unset does not reach Written"},
		{"replicated written does not meet stored flushed", replicated(3, Written), stored(Flushed),
			"durability Written does not reach Flushed"},
		{"stored flushed does not meet replicated written", stored(Flushed), replicated(3, Written),
			"acknowledgement Stored does not reach Replicated"},
		{"replicated flushed meets stored written", replicated(3, Flushed), stored(Written), ""},
		{"more replicas", replicated(5, Written), replicated(3, Written), ""},
		{"fewer replicas", replicated(2, Written), replicated(3, Written),
			"replicas 2 does not reach 3"},
		{"unstated replicas meet no stated count", replicated(0, Written), replicated(2, Written),
			"replicas unset does not reach 2"},

		{"reassemble over detect", Set{Ordering: PerProducerReassemble}, Set{Ordering: PerProducerDetect}, ""},
		{"detect under reassemble", Set{Ordering: PerProducerDetect}, Set{Ordering: PerProducerReassemble},
			"ordering PerProducer(detect) does not reach PerProducer(reassemble)"},
		{"detect over none", Set{Ordering: PerProducerDetect}, Set{}, ""},

		{"longer window", bounded(10 * time.Second), bounded(5 * time.Second), ""},
		{"shorter window", bounded(5 * time.Second), bounded(10 * time.Second),
			"dedup window 5s does not reach 10s"},
		{"bounded under durable", bounded(time.Hour), Set{Deduplication: DedupDurable},
			"deduplication Bounded does not reach Durable"},
		// As in PROTOCOL.md §9.3, a stated window is met only by a stated window.
		{"durable without window under bounded", Set{Deduplication: DedupDurable}, bounded(time.Second),
			"dedup window unset does not reach 1s"},

		{"backpressure differs upward", Set{Backpressure: Drop}, Set{},
			"backpressure Drop differs from Block"},
		{"backpressure differs downward", Set{}, Set{Backpressure: Reject},
			"backpressure Block differs from Reject"},
		{"same backpressure", Set{Backpressure: Coalesce}, Set{Backpressure: Coalesce}, ""},
		{"naming differs", Set{ProducerNaming: NamingStable}, Set{},
			"producer naming Stable differs from Fingerprint"},

		{"isolated over not", Set{ControlIsolated: true}, Set{}, ""},
		{"not isolated under isolated", Set{}, Set{ControlIsolated: true},
			"control isolation no does not reach yes"},

		{"unknown level never satisfies", Set{Delivery: Delivery(9)}, Set{},
			"delivery Delivery(9) does not reach BestEffort"},
		{"unknown requirement is never satisfied", Set{Ordering: Total}, Set{Ordering: Ordering(9)},
			"ordering Total does not reach Ordering(9)"},
		{"unknown level does not satisfy itself", Set{Delivery: Delivery(9)}, Set{Delivery: Delivery(9)},
			"delivery Delivery(9) does not reach Delivery(9)"},
		{"unknown unordered value matches nothing", Set{Backpressure: Backpressure(9)}, Set{Backpressure: Backpressure(9)},
			"backpressure Backpressure(9) differs from Backpressure(9)"},

		{"first shortfall in field order", Set{Ordering: PerProducerDetect, Backpressure: Drop},
			Set{Delivery: AtLeastOnce, Ordering: PerProducerReassemble},
			"delivery BestEffort does not reach AtLeastOnce"},
	}
	for _, tt := range tests {
		ok, short := tt.have.AtLeast(tt.required)
		if ok != (tt.short == "") || short != tt.short {
			t.Errorf("%s: (%v).AtLeast(%v) = %v, %q; want %v, %q",
				tt.name, tt.have, tt.required, ok, short, tt.short == "", tt.short)
		}
	}
}

// TestAtLeastIsReflexiveForValidSets: a configured set, offered and required
// by the same runtime, must satisfy itself or no two such runtimes connect.
func TestAtLeastIsReflexiveForValidSets(t *testing.T) {
	sets := []Set{
		{},
		{Delivery: AtLeastOnce},
		{Acknowledgement: Replicated, Replicas: 3, Durability: Flushed},
		{Ordering: PerProducerReassemble, Deduplication: DedupBounded, DedupWindow: time.Second},
		{Deduplication: DedupDurable},
		{Backpressure: Spill, ProducerNaming: NamingStable, ControlIsolated: true},
	}
	for _, s := range sets {
		if err := s.Validate(); err != nil {
			t.Fatalf("test set %v is invalid: %v", s, err)
		}
		if ok, short := s.AtLeast(s); !ok {
			t.Errorf("(%v).AtLeast(itself) = false, %q", s, short)
		}
	}
}
