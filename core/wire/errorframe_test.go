package wire

import (
	"reflect"
	"strings"
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

func TestErrorNotLeaderRoundTrip(t *testing.T) {
	for _, e := range []ErrorFrame{
		{Code: ErrorNotLeader, Leader: Some("weida://sha256:" + strings.Repeat("ab", 32) + "@10.0.0.2:7443/jobs"), Term: Some[uint64](9)},
		{Code: ErrorNotLeader, Term: Some[uint64](1 << 40)}, // no leader known
		{Code: ErrorNotLeader, Leader: Some(strings.Repeat("x", CapLeader))},
		{Code: ErrorNotLeader, Leader: Some("")},
	} {
		got, err := DecodeError(e.AppendHeader(nil))
		if err != nil || got != e {
			t.Errorf("%+v: %+v, %v", e, got, err)
		}
	}
}

func TestErrorNotLeaderRefused(t *testing.T) {
	long := ErrorFrame{Code: ErrorNotLeader, Leader: Some(strings.Repeat("x", CapLeader+1))}
	_, err := DecodeError(long.AppendHeader(nil))
	wantViolation(t, err, "ERROR key 1 (leader): text of 1025 bytes exceeds its cap of 1024")
	for _, v := range []struct{ hex, want string }{
		{"A2 00 06 01 05", "ERROR key 1 (leader): expected text string, got uint"},
		{"A2 00 06 01 62 C3 28", "ERROR key 1 (leader): text is not valid UTF-8"},
		{"A2 00 06 02 20", "ERROR key 2 (term): expected uint, got negative int"},
		{"A2 00 06 02 61 33", "ERROR key 2 (term): expected uint, got text string"},
		{"A3 00 06 02 01 01 60", "ERROR: key 1 after key 2, keys must strictly ascend"},
		{"A1 01 60", "ERROR key 0 (code) is required but missing"},
	} {
		_, err := DecodeError(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
