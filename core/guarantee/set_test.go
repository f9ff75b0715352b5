package guarantee

import (
	"testing"
	"time"
)

func TestCoreIsTheZeroSet(t *testing.T) {
	var zero Set
	if Core() != zero {
		t.Fatalf("Core() = %+v, want the zero Set", Core())
	}
	if !zero.IsCore() {
		t.Error("zero Set: IsCore() = false")
	}
}

func TestIsCoreForEachNonCoreDimension(t *testing.T) {
	for name, s := range map[string]Set{
		"delivery":         {Delivery: AtMostOnce},
		"acknowledgement":  {Acknowledgement: Accepted},
		"ack none":         {Acknowledgement: AckNone},
		"durability":       {Durability: Written},
		"replicas":         {Replicas: 2},
		"ordering":         {Ordering: PerProducerDetect},
		"deduplication":    {Deduplication: DedupDurable},
		"dedup window":     {DedupWindow: time.Second},
		"backpressure":     {Backpressure: Reject},
		"producer naming":  {ProducerNaming: NamingStable},
		"control isolated": {ControlIsolated: true},
	} {
		if s.IsCore() {
			t.Errorf("%s: %+v reports IsCore", name, s)
		}
	}
}

func TestSetString(t *testing.T) {
	tests := []struct {
		set  Set
		want string
	}{
		{Set{}, "core"},
		{Set{Ordering: PerProducerReassemble}, "ordering=PerProducer(reassemble)"},
		{Set{Acknowledgement: AckNone}, "acknowledgement=None"},
		{
			Set{Ordering: PerProducerDetect, Deduplication: DedupBounded, DedupWindow: 5 * time.Second},
			"ordering=PerProducer(detect) deduplication=Bounded dedup_window=5s",
		},
		{
			Set{
				Delivery: AtLeastOnce, Acknowledgement: Replicated, Durability: Flushed, Replicas: 3,
				Ordering: Total, Deduplication: DedupDurable, Backpressure: Coalesce,
				ProducerNaming: NamingStable, ControlIsolated: true,
			},
			"delivery=AtLeastOnce acknowledgement=Replicated durability=Flushed replicas=3 " +
				"ordering=Total deduplication=Durable backpressure=Coalesce producer_naming=Stable control_isolated=yes",
		},
		// An invalid set still prints every field it holds.
		{Set{Durability: Written, DedupWindow: 1500 * time.Microsecond}, "durability=Written dedup_window=1.5ms"},
		{Set{Delivery: Delivery(9)}, "delivery=Delivery(9)"},
	}
	for _, tt := range tests {
		if got := tt.set.String(); got != tt.want {
			t.Errorf("%+v.String()\n  got  %q\n  want %q", tt.set, got, tt.want)
		}
	}
}
