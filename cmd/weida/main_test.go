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

func TestReportDrainSpeaksOnlyOfWhatIsLeft(t *testing.T) {
	cases := []struct {
		name    string
		drained weida.Drained
		err     error
		want    string
	}{
		{"all delivered", weida.Drained{Delivered: 3}, nil, ""},
		{"nothing to drain", weida.Drained{}, nil, ""},
		{"outstanding", weida.Drained{Delivered: 1, Outstanding: 2},
			nil, "weida: 2 transfer(s) unacknowledged at the drain deadline\n"},
		{"failed", weida.Drained{}, errors.New("runtime closed"), "weida: the drain failed: runtime closed\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		reportDrain(&b, c.drained, c.err)
		if b.String() != c.want {
			t.Errorf("%s: reported %q, want %q", c.name, b.String(), c.want)
		}
	}
}

func TestSynopsisGroupsKeepsBracketsWhole(t *testing.T) {
	cases := []struct {
		synopsis string
		want     []string
	}{
		{"[--ca PATH] URL [FILE]", []string{"[--ca PATH]", "URL", "[FILE]"}},
		{"(--echo | --sink) URL", []string{"(--echo | --sink)", "URL"}},
		{"[--framing line|raw]  URL", []string{"[--framing line|raw]", "URL"}},
		{"URL", []string{"URL"}},
	}
	for _, c := range cases {
		if got := synopsisGroups(c.synopsis); strings.Join(got, "/") != strings.Join(c.want, "/") {
			t.Errorf("synopsisGroups(%q) = %q, want %q", c.synopsis, got, c.want)
		}
	}
}
