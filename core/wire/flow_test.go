package wire

import (
	"reflect"
	"testing"
)

func TestFlowRoundTrip(t *testing.T) {
	for _, f := range []Flow{
		{Endpoint: "/v", Flow: 7},
		{Endpoint: "/cam", Flow: MaxVarint, ContentType: Some("video/h264"), Traceparent: Some("00-x-y-01"),
			Tracestate: Some("a=b"), Topic: Some("cam.front")},
	} {
		got, err := DecodeFlow(f.AppendHeader(nil))
		if err != nil || !reflect.DeepEqual(got, f) {
			t.Errorf("%+v: round trip = %+v, %v", f, got, err)
		}
	}
}

func TestFlowRejects(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{"A1 00 62 2F 76", "FLOW key 1 (flow) is required but missing"},
		{"A1 01 07", "FLOW key 0 (endpoint) is required but missing"},
		{"A2 00 62 2F 76 01 61 37", "FLOW key 1 (flow): expected uint, got text string"},
		{"A3 00 62 2F 76 01 07 05 62 FF FF", "FLOW key 5 (topic): text is not valid UTF-8"},
	} {
		_, err := DecodeFlow(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
