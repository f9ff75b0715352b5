package main

import (
	"strings"
	"testing"
)

func TestParseSubOptions(t *testing.T) {
	const url = "weida://127.0.0.1:9/feed"
	cases := []struct {
		name string
		args []string
		want subOptions
	}{
		{"defaults", nil, subOptions{framing: frameLine}},
		{"filter", []string{"--filter", "px.#"}, subOptions{filter: "px.#", framing: frameLine}},
		{"count zero", []string{"--count", "0"}, subOptions{counted: true, framing: frameLine}},
		{"count at most", []string{"--count", "18446744073709551615"},
			subOptions{count: 1<<64 - 1, counted: true, framing: frameLine}},
		{"raw", []string{"--framing", "raw"}, subOptions{framing: frameRaw}},
		{"nul", []string{"--framing", "nul"}, subOptions{framing: frameNul}},
		{"length", []string{"--framing", "length"}, subOptions{framing: frameLength}},
		{"line", []string{"--framing", "line"}, subOptions{framing: frameLine}},
		{"credit", []string{"--credit", "2"}, subOptions{framing: frameLine, credit: 2}},
		{"credit held", []string{"--credit", "2", "--no-settle", "--count", "2"},
			subOptions{framing: frameLine, credit: 2, hold: true, count: 2, counted: true}},
		{"credit held uncounted", []string{"--no-settle", "--credit", "1"},
			subOptions{framing: frameLine, credit: 1, hold: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd, err := parseCommandLine(append([]string{"sub", url}, c.args...))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseSubOptions(cmd.inv)
			if err != nil || got != c.want {
				t.Errorf("parseSubOptions = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestParseSubOptionsRefusesBadValues(t *testing.T) {
	const url = "weida://127.0.0.1:9/feed"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--count", "many"}, `--count "many" is not a whole number of messages`},
		{[]string{"--count", "18446744073709551616"}, `--count "18446744073709551616" is not a whole number`},
		{[]string{"--count", "+3"}, `--count "+3" is not a whole number`},
		{[]string{"--framing", "LINE"}, `--framing "LINE" is not one of line, raw, nul, length`},
		{[]string{"--framing", ""}, `--framing "" is not one of`},
		{[]string{"--credit", "0"}, `--credit "0" is not a whole number of messages above 0`},
		{[]string{"--credit", "two"}, `--credit "two" is not a whole number of messages above 0`},
		{[]string{"--credit", "-1"}, `option --credit needs a value`},
		{[]string{"--no-settle"}, `--no-settle holds a queue's messages: it needs --credit N`},
		{[]string{"--credit", "2", "--no-settle", "--count", "3"},
			`at most --credit 2 messages come; --count 3 would wait for ever`},
	}
	for _, c := range cases {
		_, err := parseCommandLine(append([]string{"sub", url}, c.args...))
		usage, ok := err.(*usageError)
		if !ok || !strings.Contains(usage.msg, c.want) || usage.verb != subVerb {
			t.Errorf("sub %q: error %v, want a usage error of sub containing %q", c.args, err, c.want)
		}
	}
}
