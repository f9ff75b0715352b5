package main

import (
	"testing"

	weida "github.com/weida-go/weida/core"
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
