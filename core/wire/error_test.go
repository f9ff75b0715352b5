package wire

import (
	"reflect"
	"testing"
)

func TestErrorRoundTrip(t *testing.T) {
	for _, code := range []uint64{ErrorUnknownEndpoint, ErrorRejected, ErrorUnsupported, ErrorInternal, ErrorNoReply, 0, 99, 1 << 63} {
		e := ErrorFrame{Code: code}
		got, err := DecodeError(e.AppendHeader(nil))
		if err != nil || got != e {
			t.Errorf("code %d: %+v, %v", code, got, err)
		}
	}
}

func TestErrorDecode(t *testing.T) {
	for _, v := range []struct {
		hex  string
		want ErrorFrame
	}{
		{"A2 00 02 18 40 A1 00 00", ErrorFrame{Code: ErrorRejected}}, // extension key skipped
		{"A1 00 1A 00 00 00 05", ErrorFrame{Code: ErrorNoReply}},     // non-minimal
	} {
		got, err := DecodeError(unhex(t, v.hex))
		if err != nil || !reflect.DeepEqual(got, v.want) {
			t.Errorf("%s = %+v, %v", v.hex, got, err)
		}
	}
	for _, v := range []struct{ hex, want string }{
		{"A1 00 61 35", "ERROR key 0 (code): expected uint, got text string"},
		{"A1 00 25", "ERROR key 0 (code): expected uint, got negative int"},
		{"A0", "ERROR key 0 (code) is required but missing"},
		{"A2 00 05 00 05", "ERROR: duplicate key 0"},
	} {
		_, err := DecodeError(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
