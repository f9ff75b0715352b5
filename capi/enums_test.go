package main

import (
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// The enums of weida.h that mirror library values: a level, mode or meta
// field renumbered on one side only would silently mean something else.
func TestHeaderEnumsMirrorTheLibrary(t *testing.T) {
	cases := []struct {
		enum string
		want map[string]int
	}{
		{"weida_level", map[string]int{
			"WEIDA_TRANSPORT_RECEIPT": int(weida.TransportReceipt), "WEIDA_ACCEPTED": int(weida.Accepted),
			"WEIDA_STORED": int(weida.Stored), "WEIDA_REPLICATED": int(weida.Replicated),
			"WEIDA_PROCESSED": int(weida.Processed), "WEIDA_APPLICATION_FLOOR": int(weida.ApplicationFloor),
		}},
		{"weida_report_mode", map[string]int{
			"WEIDA_PROGRESS": int(weida.Progress), "WEIDA_FINAL_ONLY": int(weida.FinalOnly),
		}},
		{"weida_meta_field", map[string]int{
			"WEIDA_META_ENDPOINT": metaEndpoint, "WEIDA_META_CONTENT_TYPE": metaContentType,
			"WEIDA_META_TOPIC": metaTopic, "WEIDA_META_PEER": metaPeer,
			"WEIDA_META_TRACEPARENT": metaTraceparent, "WEIDA_META_TRACESTATE": metaTracestate,
			"WEIDA_META_LOCAL_PEER":  metaLocalPeer,
			"WEIDA_META_CONTENT_LEN": metaContentLen, "WEIDA_META_SEQUENCE": metaSequence,
			"WEIDA_META_MISSED": metaMissed, "WEIDA_META_REPORT_MODE": metaReportMode,
			"WEIDA_META_REPORT_ID": metaReportID, "WEIDA_META_SEGMENT": metaSegment,
			"WEIDA_META_LAYER": metaLayer, "WEIDA_META_DELIVERY_ATTEMPT": metaAttempt,
			"WEIDA_META_ACHIEVED": metaAchieved,
		}},
		{"weida_ordering", map[string]int{
			"WEIDA_ORDERING_NONE": int(guarantee.OrderingNone), "WEIDA_ORDERING_DETECT": int(guarantee.PerProducerDetect),
			"WEIDA_ORDERING_REASSEMBLE": int(guarantee.PerProducerReassemble),
			"WEIDA_ORDERING_PER_KEY":    int(guarantee.PerKey), "WEIDA_ORDERING_TOTAL": int(guarantee.Total),
		}},
		{"weida_deduplication", map[string]int{
			"WEIDA_DEDUP_NONE": int(guarantee.DedupNone), "WEIDA_DEDUP_BOUNDED": int(guarantee.DedupBounded),
			"WEIDA_DEDUP_DURABLE": int(guarantee.DedupDurable),
		}},
		{"weida_delivery", map[string]int{
			"WEIDA_DELIVERY_BEST_EFFORT": int(guarantee.BestEffort), "WEIDA_DELIVERY_AT_MOST_ONCE": int(guarantee.AtMostOnce),
			"WEIDA_DELIVERY_AT_LEAST_ONCE": int(guarantee.AtLeastOnce),
		}},
		{"weida_durability", map[string]int{
			"WEIDA_DURABILITY_UNSET": int(guarantee.DurabilityUnset), "WEIDA_DURABILITY_WRITTEN": int(guarantee.Written),
			"WEIDA_DURABILITY_FLUSHED": int(guarantee.Flushed),
		}},
		{"weida_backpressure", map[string]int{
			"WEIDA_BACKPRESSURE_BLOCK": int(guarantee.Block), "WEIDA_BACKPRESSURE_REJECT": int(guarantee.Reject),
			"WEIDA_BACKPRESSURE_DROP": int(guarantee.Drop), "WEIDA_BACKPRESSURE_SPILL": int(guarantee.Spill),
			"WEIDA_BACKPRESSURE_COALESCE": int(guarantee.Coalesce),
		}},
		{"weida_producer_naming", map[string]int{
			"WEIDA_NAMING_FINGERPRINT": int(guarantee.NamingFingerprint), "WEIDA_NAMING_STABLE": int(guarantee.NamingStable),
		}},
	}
	for _, c := range cases {
		got := headerEnum(t, c.enum)
		if len(got) != len(c.want) {
			t.Errorf("enum %s has %d values in weida.h, the library %d", c.enum, len(got), len(c.want))
		}
		for name, want := range c.want {
			if n, ok := got[name]; !ok || n != want {
				t.Errorf("enum %s: weida.h has %s = %d (declared %v), the library %d", c.enum, name, n, ok, want)
			}
		}
	}
}

func TestEveryRoleHasAName(t *testing.T) {
	for r := roleRuntime; r <= lastRole; r++ {
		if r.String() == "unknown" {
			t.Errorf("role %d has no name: a wrong-role error could not say what it is", r)
		}
	}
	if got := role(0).String(); got != "unknown" {
		t.Errorf("role 0 is %q, want unknown", got)
	}
}
