package wire

import (
	"math"
	"reflect"
	"testing"
)

func TestCreditRoundTrip(t *testing.T) {
	for _, c := range []Credit{
		{Endpoint: "/jobs", Filter: "", Limit: 0},
		{Endpoint: "/jobs", Filter: "px.#", Limit: math.MaxUint64}, // "send everything"
	} {
		got, err := DecodeCredit(c.AppendHeader(nil))
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%+v: round trip = %+v, %v", c, got, err)
		}
	}
}

func TestCreditRejects(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{"A2 01 60 02 05", "CREDIT key 0 (endpoint) is required but missing"},
		{"A2 00 62 2F 71 02 05", "CREDIT key 1 (filter) is required but missing"},
		{"A2 00 62 2F 71 01 60", "CREDIT key 2 (limit) is required but missing"},
		{"A3 00 62 2F 71 01 60 02 20", "CREDIT key 2 (limit): expected uint, got negative int"},
		{"A3 00 62 2F 71 01 63 70 78 23 02 01", "CREDIT key 1 (filter): filter \"px#\": segment 0"},
	} {
		_, err := DecodeCredit(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
