package wire

import (
	"reflect"
	"strings"
	"testing"
)

func TestSubscribeRoundTrip(t *testing.T) {
	for _, s := range []Subscribe{
		{Endpoint: "/md", Filter: ""},
		{Endpoint: "/radio", Filter: "cam.*.hd", MaxAgeMs: Some[uint64](0), MaxLayer: Some[uint64](MaxLayer)},
		{Endpoint: strings.Repeat("p", CapEndpoint), Filter: strings.Repeat("f", CapFilter)},
	} {
		for _, k := range []Kind{KindSubscribe, KindUnsubscribe} {
			frame := AppendFrame(nil, k, &s)
			p, n, err := ParsePreamble(frame, DefaultMaxHeaderBytes)
			if err != nil || p.Kind != k {
				t.Fatalf("preamble %+v, %v", p, err)
			}
			got, err := DecodeSubscribe(frame[n:])
			if err != nil || !reflect.DeepEqual(got, s) {
				t.Errorf("%v %+v: round trip = %+v, %v", k, s, got, err)
			}
		}
	}
}

func TestSubscribeRejects(t *testing.T) {
	for _, v := range []struct {
		s    Subscribe
		want string
	}{
		{Subscribe{Endpoint: "/md", Filter: "px.#.eur"}, "SUBSCRIBE key 1 (filter): filter \"px.#.eur\": segment 1"},
		{Subscribe{Endpoint: "/md", Filter: strings.Repeat("f", CapFilter+1)}, "key 1 (filter): text of 257 bytes exceeds its cap of 256"},
		{Subscribe{Endpoint: strings.Repeat("p", CapEndpoint+1)}, "key 0 (endpoint): text of 513 bytes"},
		{Subscribe{Endpoint: "/r", MaxLayer: Some[uint64](16)}, "key 3 (max_layer): value 16 is undefined (0..=15)"},
	} {
		_, err := DecodeSubscribe(v.s.AppendHeader(nil))
		wantViolation(t, err, v.want)
	}
	for _, v := range []struct{ hex, want string }{
		{"A1 01 60", "key 0 (endpoint) is required but missing"},
		{"A1 00 63 2F 6D 64", "key 1 (filter) is required but missing"},
		{"A2 00 63 2F 6D 64 01 40", "key 1 (filter): expected text string, got byte string"},
		{"A3 00 62 2F 74 01 60 02 F6", "key 2 (max_age_ms): expected uint, got simple value"},
	} {
		_, err := DecodeSubscribe(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
