package main

import (
	"maps"
	"strings"
	"testing"
)

func TestParseCommandLineAcceptsOptionsAnywhere(t *testing.T) {
	const url = "weida://127.0.0.1:9/p"
	cases := []struct {
		name   string
		args   []string
		action action
		url    string
		file   string
		given  map[string]string
	}{
		{"url only", []string{"send", url}, runVerbAction, url, "", map[string]string{}},
		{"url and file", []string{"request", url, "in.bin"}, runVerbAction, url, "in.bin", map[string]string{}},
		{"option first", []string{"send", "--ca", "ca.pem", url}, runVerbAction, url, "", map[string]string{"--ca": "ca.pem"}},
		{"option between", []string{"send", url, "--ca", "ca.pem", "f"}, runVerbAction, url, "f", map[string]string{"--ca": "ca.pem"}},
		{"option last", []string{"send", url, "f", "--ca", "ca.pem"}, runVerbAction, url, "f", map[string]string{"--ca": "ca.pem"}},
		{"lone dash is an argument", []string{"send", url, "-"}, runVerbAction, url, "-", map[string]string{}},
		{"serve flags and values", []string{"serve", url, "--identity", "id.pem", "--echo"}, runVerbAction, url, "",
			map[string]string{"--identity": "id.pem", "--echo": ""}},
		{"help verb", []string{"help"}, showHelp, "", "", nil},
		{"help before a verb", []string{"-h", "send"}, showHelp, "", "", nil},
		{"help after a verb", []string{"serve", "--help"}, showHelp, "", "", nil},
		{"version after a verb", []string{"request", url, "-V"}, showVersion, "", "", nil},
		{"help wins over a later mistake", []string{"send", "--help", "--bogus"}, showHelp, "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCommandLine(c.args)
			if err != nil {
				t.Fatalf("parseCommandLine(%q): %v", c.args, err)
			}
			if got.action != c.action {
				t.Fatalf("action %d, want %d", got.action, c.action)
			}
			if c.action != runVerbAction {
				return
			}
			if got.inv.verb.name != c.args[0] || got.inv.url != c.url || got.inv.file != c.file {
				t.Errorf("verb %q url %q file %q, want %q %q %q", got.inv.verb.name, got.inv.url, got.inv.file, c.args[0], c.url, c.file)
			}
			if !maps.Equal(got.inv.given, c.given) {
				t.Errorf("options %v, want %v", got.inv.given, c.given)
			}
		})
	}
}

func TestParseCommandLineRefusesMistakes(t *testing.T) {
	const url = "weida://127.0.0.1:9/p"
	cases := []struct {
		name     string
		args     []string
		want     string
		withVerb bool // the error carries the verb's synopsis
	}{
		{"nothing", nil, "no verb given", false},
		{"unknown verb", []string{"publish", url}, `unknown verb "publish"`, false},
		{"option before the verb", []string{"--ca", "x", "send"}, `unknown option "--ca" before the verb`, false},
		{"unknown option", []string{"send", url, "--cs", "x"}, `unknown option "--cs" for send`, true},
		{"value syntax not supported", []string{"send", url, "--ca=x"}, `unknown option "--ca=x"`, true},
		{"value missing at the end", []string{"request", url, "--ca"}, "option --ca needs a value (PATH)", true},
		{"value missing before an option", []string{"serve", "--identity", "--echo", url}, "option --identity needs a value", true},
		{"option twice", []string{"send", "--ca", "a", url, "--ca", "b"}, "option --ca given twice", true},
		{"missing URL", []string{"send", "--ca", "x"}, "missing URL", true},
		{"third argument", []string{"request", url, "f", "g"}, `unexpected argument "g": request takes a URL and at most one FILE`, true},
		{"serve file", []string{"serve", "--sink", url, "f"}, `unexpected argument "f": serve takes only a URL`, true},
		{"serve without role", []string{"serve", url}, "serve needs a role: --echo or --sink or --pub", true},
		{"serve with two roles", []string{"serve", "--sink", url, "--echo"}, "serve takes one role, not --echo or --sink", true},
		{"dialling option on serve", []string{"serve", "--echo", url, "--ca", "x"}, `unknown option "--ca" for serve`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseCommandLine(c.args)
			usage, ok := err.(*usageError)
			if !ok {
				t.Fatalf("parseCommandLine(%q) = %v, want a usage error", c.args, err)
			}
			if !strings.Contains(usage.msg, c.want) {
				t.Errorf("error %q does not contain %q", usage.msg, c.want)
			}
			if (usage.verb != nil) != c.withVerb {
				t.Errorf("error names a verb: %v, want %v", usage.verb != nil, c.withVerb)
			}
		})
	}
}

func TestReportUsageErrorPointsAtTheRightUsage(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{usageErrorf(sendVerb, "missing URL"), "weida: missing URL\nusage: weida send [--ca PATH] [--trust FILE] [--identity PATH] [--timeout DURATION] URL [FILE|-]\n"},
		{usageErrorf(nil, `unknown verb "x"`), "weida: unknown verb \"x\"\nrun \"weida --help\" for the verbs and options\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		reportUsageError(&b, c.err)
		if b.String() != c.want {
			t.Errorf("reported %q, want %q", b.String(), c.want)
		}
	}
}
