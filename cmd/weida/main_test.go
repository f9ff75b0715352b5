package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
)

func TestExitCodeFollowsTheErrorKind(t *testing.T) {
	kindError := func(k weida.ErrorKind) error { return &weida.Error{Kind: k, Msg: k.String()} }
	cases := []struct {
		name string
		err  error
		code int
	}{
		{"success", nil, 0},
		{"plain error", errors.New("cannot read the payload"), 1},
		{"usage", usageErrorf(nil, "no verb given"), 2},
		{"rejected", kindError(weida.KindRejected), 3},
		{"unknown endpoint", kindError(weida.KindUnknownEndpoint), 4},
		{"no reply", kindError(weida.KindNoReply), 5},
		{"untrusted", kindError(weida.KindUntrusted), 6},
		{"connection lost", kindError(weida.KindConnectionLost), 7},
		{"not connected", kindError(weida.KindNotConnected), 7},
		{"indeterminate is not definite", kindError(weida.KindIndeterminate), 1},
		{"tls", kindError(weida.KindTLS), 1},
		{"invalid address", kindError(weida.KindInvalidAddress), 1},
		{"canceled", kindError(weida.KindCanceled), 1},
		{"wrapped kind", fmt.Errorf("context: %w", kindError(weida.KindRejected)), 3},
		{"already reported", &reportedError{kindError(weida.KindUnknownEndpoint)}, 4},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("%s: exitCode(%v) = %d, want %d", c.name, c.err, got, c.code)
		}
	}
}

func TestUsageNamesEveryVerbOptionAndExitCode(t *testing.T) {
	var b strings.Builder
	writeUsage(&b)
	text := b.String()
	var want []string
	for _, v := range verbs {
		want = append(want, "weida "+v.name+" ", v.summary[:20])
		for _, o := range v.options {
			want = append(want, o.name)
		}
	}
	for _, row := range exitTable {
		want = append(want, fmt.Sprintf("  %d  %s", row.code, row.meaning[:20]))
	}
	want = append(want, "--help", "-h", "help", "--version", "-V")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the usage text lacks %q", w)
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if len(line) > usageWidth {
			t.Errorf("usage line %d is %d characters, more than %d: %q", i+1, len(line), usageWidth, line)
		}
	}
}
