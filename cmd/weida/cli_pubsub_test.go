package main

// sub against serve --pub, both as subprocesses. Each test waits for the
// subscription with awaitSubscription (a probe line published until the
// publisher reports one subscriber) and publishes each next line only once
// the subscriber reported the last: Pub/Sub promises no order between
// messages, so this is what makes stdout's order a fact to assert.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubWritesEachFraming(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"line", "raw", "nul", "length"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
			sub := startWeida(t, false, "sub", "--filter", "t.#", "--count", "3", "--framing", form, pub.addr)
			sub.expectLine(t, `subscribed filter="t.#"`)
			pub.awaitSubscription(t, "t.probe probe")
			sub.expectLine(t, "topic=t.probe bytes=5")

			if _, n := pub.publish(t, "other.topic not for this filter"); n != 0 {
				t.Errorf("a topic outside the filter reached %d subscribers, want 0", n)
			}
			for _, m := range []struct{ line, topic, body string }{
				{"t.a alpha beta", "t.a", "alpha beta"},
				{"t.b.c gamma", "t.b.c", "gamma"},
			} {
				if _, n := pub.publish(t, m.line); n != 1 {
					t.Fatalf("%q reached %d subscribers, want 1", m.line, n)
				}
				sub.expectLine(t, fmt.Sprintf("topic=%s bytes=%d", m.topic, len(m.body)))
			}

			code, stdout, stderr := sub.wait(t)
			if code != exitOK {
				t.Fatalf("sub exited %d after --count 3, want 0; stderr:\n%s", code, stderr)
			}
			if want := framed(t, form, "probe", "alpha beta", "gamma"); !bytes.Equal(stdout, want) {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			if strings.Contains(stderr, "other.topic") {
				t.Errorf("sub reported a message outside its filter:\n%s", stderr)
			}
			pub.endStdin(t)
			if code, _, stderr := pub.wait(t); code != exitOK {
				t.Errorf("serve --pub exited %d at the end of stdin, want 0; stderr:\n%s", code, stderr)
			}
		})
	}
}

func TestServePubSplitsLinesAtTheFirstSpace(t *testing.T) {
	t.Parallel()
	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
	// length framing, the one that can carry any body, empty ones included.
	sub := startWeida(t, false, "sub", "--framing", "length", "--count", "7", pub.addr)
	sub.expectLine(t, `subscribed filter=""`)
	pub.awaitSubscription(t, "probe hello")
	sub.expectLine(t, "topic=probe bytes=5")

	lines := []struct{ line, topic, body string }{
		{"px.eur 1.0841", "px.eur", "1.0841"},
		{"news the body keeps its spaces", "news", "the body keeps its spaces"},
		{"no-space-here", "", "no-space-here"},
		{" leading space", "", "leading space"},
		{"", "", ""},
		{"crlf only the newline is stripped\r", "crlf", "only the newline is stripped\r"},
	}
	bodies := []string{"hello"}
	for _, l := range lines {
		topic, n := pub.publish(t, l.line)
		if topic != l.topic || n != 1 {
			t.Errorf("line %q: published topic=%q subscribers=%d, want topic=%q subscribers=1", l.line, topic, n, l.topic)
		}
		sub.expectLine(t, fmt.Sprintf("topic=%s bytes=%d", l.topic, len(l.body)))
		bodies = append(bodies, l.body)
	}
	code, stdout, stderr := sub.wait(t)
	if code != exitOK {
		t.Fatalf("sub exited %d, want 0; stderr:\n%s", code, stderr)
	}
	if got := splitLengthFramed(t, stdout); strings.Join(got, "|") != strings.Join(bodies, "|") {
		t.Errorf("bodies %q, want %q", got, bodies)
	}
	pub.endStdin(t)
	if code, _, stderr := pub.wait(t); code != exitOK {
		t.Errorf("serve --pub exited %d at the end of stdin, want 0; stderr:\n%s", code, stderr)
	}
}

// splitLengthFramed reads stdout written with --framing length.
func splitLengthFramed(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for len(b) > 0 {
		if len(b) < 8 || uint64(len(b)-8) < binary.BigEndian.Uint64(b) {
			t.Fatalf("truncated frame: %q", b)
		}
		n := binary.BigEndian.Uint64(b)
		out = append(out, string(b[8:8+n]))
		b = b[8+n:]
	}
	return out
}

func TestServePubDeliversWhatItReadBeforeTheEndOfStdin(t *testing.T) {
	t.Parallel()
	// The drain at the end of stdin must first write the copies still
	// queued for subscribers, then wait for their receipts.
	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
	sub := startWeida(t, false, "sub", "--count", "2", pub.addr)
	sub.expectLine(t, `subscribed filter=""`)
	pub.awaitSubscription(t, "probe hello")
	sub.expectLine(t, "topic=probe bytes=5")
	// The last line has no "\n", and stdin ends at once: serve must publish
	// it and drain the copy to the subscriber before it exits.
	if _, err := pub.stdin.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	pub.endStdin(t)
	pub.expectLine(t, "published topic=last subscribers=1")
	if code, _, stderr := pub.wait(t); code != exitOK {
		t.Errorf("serve --pub exited %d at the end of stdin, want 0; stderr:\n%s", code, stderr)
	}
	code, stdout, stderr := sub.wait(t)
	if code != exitOK || string(stdout) != "hello\nwords\n" {
		t.Errorf("sub exited %d with stdout %q, want 0 and %q; stderr:\n%s", code, stdout, "hello\nwords\n", stderr)
	}
}

func TestSubFollowsThePublisherAcrossARestart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		keepIdentity bool
	}{
		{"same key: subscribes again", true},
		{"new key: gives up (exit 7)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--pub", fmt.Sprintf("weida://127.0.0.1:%d/feed", closedUDPPort(t))}
			if c.keepIdentity {
				args = append(args, "--identity", filepath.Join(t.TempDir(), "pub.pem"))
			}
			first := startServeFed(t, args...)
			sub := startWeida(t, false, "sub", "--count", "2", first.addr)
			sub.expectLine(t, `subscribed filter=""`)
			first.awaitSubscription(t, "probe one")
			sub.expectLine(t, "topic=probe bytes=3")

			first.endStdin(t)
			if code, _, stderr := first.wait(t); code != exitOK {
				t.Fatalf("the first publisher exited %d, want 0; stderr:\n%s", code, stderr)
			}
			sub.expectLine(t, "weida: lost the publisher (PeerClosed); redialling")
			second := startServeFed(t, args...)

			if !c.keepIdentity {
				// The message that came before the failure stays on stdout.
				code, stdout, stderr := sub.wait(t)
				want := "weida: gave up on the publisher at " + first.addr + ": it now answers with a different key\n"
				if code != exitDisconnected || !strings.Contains(stderr, want) || string(stdout) != "one\n" {
					t.Errorf("sub exited %d with stdout %q, want %d and %q; stderr (want %q):\n%s",
						code, stdout, exitDisconnected, "one\n", want, stderr)
				}
				return
			}
			sub.expectLine(t, "weida: reconnected to the publisher and subscribed again; "+
				"what it published meanwhile is missed")
			second.awaitSubscription(t, "probe two")
			code, stdout, stderr := sub.wait(t)
			if code != exitOK || string(stdout) != "one\ntwo\n" {
				t.Errorf("sub exited %d with stdout %q, want 0 and %q; stderr:\n%s", code, stdout, "one\ntwo\n", stderr)
			}
		})
	}
}
