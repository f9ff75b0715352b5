package guarantee

import (
	"github.com/weida-go/weida/core/errs"
	"testing"
	"time"
)

func TestSupported(t *testing.T) {
	none := Capabilities{}
	all := Capabilities{Ordering: true, Deduplication: true, Accepted: true, Stored: Flushed}
	written := Capabilities{Stored: Written}
	cluster3 := Capabilities{Accepted: true, Stored: Flushed, Replicated: Flushed, Replicas: 2}
	bounded := Set{Deduplication: DedupBounded, DedupWindow: time.Second}
	tests := []struct {
		name string
		set  Set
		caps Capabilities
		want string // "" = honoured
	}{
		{"core needs no capability", Set{}, none, ""},
		{"core with every capability", Set{}, all, ""},

		{"detect with ordering", Set{Ordering: PerProducerDetect}, Capabilities{Ordering: true}, ""},
		{"reassemble with ordering", Set{Ordering: PerProducerReassemble}, Capabilities{Ordering: true}, ""},
		{"detect without ordering", Set{Ordering: PerProducerDetect}, none,
			"guarantee set: ordering PerProducer(detect) cannot be honoured by this runtime"},
		{"reassemble without ordering", Set{Ordering: PerProducerReassemble}, Capabilities{Deduplication: true, Accepted: true},
			"guarantee set: ordering PerProducer(reassemble) cannot be honoured by this runtime"},
		{"per key", Set{Ordering: PerKey}, all,
			"guarantee set: ordering PerKey cannot be honoured by this runtime"},
		{"total", Set{Ordering: Total}, all,
			"guarantee set: ordering Total cannot be honoured by this runtime"},

		{"bounded with deduplication", bounded, Capabilities{Deduplication: true}, ""},
		{"bounded without deduplication", bounded, Capabilities{Ordering: true, Accepted: true},
			"guarantee set: deduplication Bounded cannot be honoured by this runtime"},
		{"durable dedup", Set{Deduplication: DedupDurable}, all,
			"guarantee set: deduplication Durable cannot be honoured by this runtime"},

		{"accepted by a broker", Set{Acknowledgement: Accepted}, Capabilities{Accepted: true}, ""},
		{"accepted without a broker", Set{Acknowledgement: Accepted}, Capabilities{Ordering: true, Deduplication: true},
			"guarantee set: acknowledgement Accepted cannot be honoured by this runtime"},
		{"accepted by a store", Set{Acknowledgement: Accepted}, written, ""},
		{"stored flushed by a flushing store", Set{Acknowledgement: Stored, Durability: Flushed}, all, ""},
		{"stored written by a flushing store", Set{Acknowledgement: Stored, Durability: Written}, all, ""},
		{"stored without an axis by a store", Set{Acknowledgement: Stored}, written, ""},
		{"stored written by a writing store", Set{Acknowledgement: Stored, Durability: Written}, written, ""},
		{"stored flushed by a writing store", Set{Acknowledgement: Stored, Durability: Flushed}, written,
			"guarantee set: acknowledgement Stored(Flushed) cannot be honoured by this runtime"},
		{"stored by a queue that keeps memory", Set{Acknowledgement: Stored, Durability: Written}, Capabilities{Accepted: true},
			"guarantee set: acknowledgement Stored(Written) cannot be honoured by this runtime"},
		{"stored without a store", Set{Acknowledgement: Stored}, none,
			"guarantee set: acknowledgement Stored cannot be honoured by this runtime"},
		{"unknown durability", Set{Acknowledgement: Stored, Durability: Durability(3)}, all,
			"guarantee set: acknowledgement Stored(Durability(3)) cannot be honoured by this runtime"},
		{"an unknown store durability stores nothing", Set{Acknowledgement: Accepted}, Capabilities{Stored: Durability(3)},
			"guarantee set: acknowledgement Accepted cannot be honoured by this runtime"},
		{"replicated without a cluster", Set{Acknowledgement: Replicated, Replicas: 3}, all,
			"guarantee set: acknowledgement Replicated(3) cannot be honoured by this runtime"},
		{"replicated flushed by a flushing cluster", Set{Acknowledgement: Replicated, Replicas: 2, Durability: Flushed}, cluster3, ""},
		{"replicated written by a flushing cluster", Set{Acknowledgement: Replicated, Replicas: 2, Durability: Written}, cluster3, ""},
		{"stored by a flushing cluster", Set{Acknowledgement: Stored, Durability: Flushed}, cluster3, ""},
		{"more replicas than the cluster certifies", Set{Acknowledgement: Replicated, Replicas: 3, Durability: Flushed}, cluster3,
			"guarantee set: acknowledgement Replicated(3, Flushed) cannot be honoured by this runtime"},
		{"replicated flushed by a writing cluster", Set{Acknowledgement: Replicated, Replicas: 2, Durability: Flushed},
			Capabilities{Accepted: true, Stored: Written, Replicated: Written, Replicas: 2},
			"guarantee set: acknowledgement Replicated(2, Flushed) cannot be honoured by this runtime"},
		{"processed", Set{Acknowledgement: Processed}, all,
			"guarantee set: acknowledgement Processed cannot be honoured by this runtime"},

		{"at most once", Set{Delivery: AtMostOnce}, all,
			"guarantee set: delivery AtMostOnce cannot be honoured by this runtime"},
		{"at least once", Set{Delivery: AtLeastOnce}, all,
			"guarantee set: delivery AtLeastOnce cannot be honoured by this runtime"},

		{"reject", Set{Backpressure: Reject}, all,
			"guarantee set: backpressure Reject cannot be honoured by this runtime"},
		{"drop", Set{Backpressure: Drop}, all,
			"guarantee set: backpressure Drop cannot be honoured by this runtime"},
		{"spill", Set{Backpressure: Spill}, all,
			"guarantee set: backpressure Spill cannot be honoured by this runtime"},
		{"coalesce", Set{Backpressure: Coalesce}, all,
			"guarantee set: backpressure Coalesce cannot be honoured by this runtime"},

		{"stable naming", Set{ProducerNaming: NamingStable}, all,
			"guarantee set: producer naming Stable cannot be honoured by this runtime"},
		{"control isolated", Set{ControlIsolated: true}, all,
			"guarantee set: control isolation yes cannot be honoured by this runtime"},

		// None promises less than core; it is Validate's to refuse, not Supported's.
		{"acknowledgement none", Set{Acknowledgement: AckNone}, none, ""},
		{"unknown acknowledgement", Set{Acknowledgement: Acknowledgement(6)}, all,
			"guarantee set: acknowledgement Acknowledgement(6) cannot be honoured by this runtime"},
		{"unknown ordering", Set{Ordering: Ordering(5)}, all,
			"guarantee set: ordering Ordering(5) cannot be honoured by this runtime"},

		{"everything v0 can do at once",
			Set{Acknowledgement: Accepted, Ordering: PerProducerReassemble, Deduplication: DedupBounded, DedupWindow: time.Minute},
			all, ""},
		// The first dimension the runtime cannot honour, in field order, is named.
		{"first shortfall wins", Set{Delivery: AtLeastOnce, Ordering: Total, ControlIsolated: true}, all,
			"guarantee set: delivery AtLeastOnce cannot be honoured by this runtime"},
	}
	for _, tt := range tests {
		// A well-formed level this runtime cannot honour is Unsupported.
		wantRefusalOf(t, errs.KindUnsupported, tt.name, tt.set.Supported(tt.caps), tt.want)
	}
}
