package main

import (
	"context"
	"strings"
	"testing"
)

func TestSplitPubLine(t *testing.T) {
	cases := []struct {
		line, topic, body string
	}{
		{"px.eur 1.08", "px.eur", "1.08"},
		{"news body with spaces", "news", "body with spaces"},
		{"no-space", "", "no-space"},
		{" leading", "", "leading"},
		{"trailing ", "trailing", ""},
		{"", "", ""},
		{"t  two spaces", "t", " two spaces"},
		{"t\tbody", "", "t\tbody"}, // only a space separates
	}
	for _, c := range cases {
		topic, body := splitPubLine([]byte(c.line))
		if topic != c.topic || string(body) != c.body {
			t.Errorf("splitPubLine(%q) = %q, %q; want %q, %q", c.line, topic, body, c.topic, c.body)
		}
	}
}

func TestReadLinesStripsOnlyTheNewline(t *testing.T) {
	cases := []struct {
		name  string
		stdin string
		lines []string
	}{
		{"empty stdin", "", nil},
		{"one line", "a b\n", []string{"a b"}},
		{"last line without a newline", "a\nb", []string{"a", "b"}},
		{"empty lines", "\n\n", []string{"", ""}},
		{"carriage return kept", "a b\r\n", []string{"a b\r"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAllLines(strings.NewReader(c.stdin))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(c.lines, "|") || len(got) != len(c.lines) {
				t.Errorf("lines %q, want %q", got, c.lines)
			}
		})
	}
}

func TestReadLinesRefusesAnOverlongLine(t *testing.T) {
	fits := strings.Repeat("x", maxPubLine)
	if got, err := readAllLines(strings.NewReader(fits + "\n")); err != nil || len(got) != 1 || len(got[0]) != maxPubLine {
		t.Fatalf("a line of exactly %d bytes: %d lines, %v", maxPubLine, len(got), err)
	}
	_, err := readAllLines(strings.NewReader(fits + "x\n"))
	if err == nil || !strings.Contains(err.Error(), "a line of stdin is longer than") {
		t.Errorf("a line of %d bytes: %v, want the line refused", maxPubLine+1, err)
	}
}

// readAllLines runs readLines over stdin to its end.
func readAllLines(stdin *strings.Reader) ([]string, error) {
	lines := make(chan stdinLine)
	go readLines(context.Background(), stdin, lines)
	var got []string
	for l := range lines {
		switch {
		case l.err != nil:
			return got, l.err
		case l.eof:
			return got, nil
		}
		got = append(got, string(l.text))
	}
	return got, nil
}
