package wire

import (
	"bytes"
	"strings"
	"testing"
)

// The leader query's answer {0: "weida://h:1/q", 1: 3}, checked by hand:
// A2 (map of 2), 00 6D + 13 text bytes, 01 03.
const leaderAnswerHex = "A2 00 6D 77 65 69 64 61 3A 2F 2F 68 3A 31 2F 71 01 03"

func TestLeaderAnswerGolden(t *testing.T) {
	want := LeaderAnswer{Leader: "weida://h:1/q", Term: 3}
	b := unhex(t, leaderAnswerHex)
	if got := want.AppendHeader(nil); !bytes.Equal(got, b) {
		t.Fatalf("encode = % X, want %s", got, leaderAnswerHex)
	}
	got, err := DecodeLeaderAnswer(b)
	if err != nil || got != want {
		t.Fatalf("decode = %+v, %v", got, err)
	}
}

func TestLeaderAnswerRefused(t *testing.T) {
	long := LeaderAnswer{Leader: strings.Repeat("x", CapLeader+1)}
	_, err := DecodeLeaderAnswer(long.AppendHeader(nil))
	wantViolation(t, err, "leader answer key 0 (leader): text of 1025 bytes exceeds its cap of 1024")
	for _, v := range []struct{ hex, want string }{
		{"A1 00 60", "leader answer key 1 (term) is required but missing"},
		{"A1 01 03", "leader answer key 0 (leader) is required but missing"},
		{"A2 00 60 01 20", "leader answer key 1 (term): expected uint, got negative int"},
		{"81 00", "leader answer header: expected map, got array"},
		{"A2 00 60 01 03 00", "leader answer header: bytes left after the map"},
	} {
		_, err := DecodeLeaderAnswer(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}
