package main

// --trust FILE: the dialling verbs trust a cluster's member keys, as
// broker --trust-out writes them.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// statsLeader asks member p for its figures and returns the key of the
// leader they name.
func statsLeader(t *testing.T, p *proc) string {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	return p.expectMatch(t, regexp.MustCompile(`^weida: stats queue=/jobs .* leader=weida://(sha256:[0-9a-f]{64})@`))[1]
}

// TestRequestWithTrustFollowsAFollowerToTheLeader gives `weida request` a
// follower's keyless URL and the members' trust file: the follower's
// NOT_LEADER hint names a key the file lists, so the request reaches the
// leader and is confirmed. A file naming no member is refused Untrusted.
func TestRequestWithTrustFollowsAFollowerToTheLeader(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	site, procs, addrs, trust := startTrustedCluster(t)
	replicatedConfirm(t, ctx, addrs, "first") // a leader is elected
	leader := statsLeader(t, procs[0])
	follower := -1
	for i, key := range site.keys {
		if key != leader {
			follower = i
			break
		}
	}
	keyless := site.bindURL(follower, "/jobs")

	r := runWeida(t, []byte("job"), "request", "--trust", trust, "--timeout", "30s", keyless)
	expectOutcome(t, r, exitOK, "reply bytes=")
	if strings.Contains(r.stderr, "weida: ") {
		t.Fatalf("the confirmed request reported an error:\n%s", r.stderr)
	}

	// Without --trust a keyless URL names nobody to believe, and the
	// follower's own key believes no other: its refusal, naming the
	// leader, is the answer.
	expectOutcome(t, runWeida(t, []byte("job"), "request", "--timeout", "30s", keyless),
		exitFailure, "names no fingerprint and no trust is configured")
	expectOutcome(t, runWeida(t, []byte("job"), "request", "--timeout", "30s", addrs[follower]),
		exitRejected, "not the leader; the leader is weida://"+leader+"@")

	stranger := writeFile(t, "stranger.keys", []byte(writeIdentity(t, filepath.Join(t.TempDir(), "stranger.pem"))+"\n"))
	expectOutcome(t, runWeida(t, []byte("job"), "request", "--trust", stranger, "--timeout", "30s", keyless),
		exitUntrusted, "which is not trusted")

	for i, p := range procs {
		if code, _, stderr := p.stop(t); code != exitOK {
			t.Fatalf("member %d exited %d on SIGTERM; stderr:\n%s", i+1, code, stderr)
		}
	}
}

// TestTrustFileRefusals: a trust file that cannot be read, lists no key or
// holds a line that is not a fingerprint fails the verb before anything
// is dialled, naming the file and the line.
func TestTrustFileRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := "sha256:" + strings.Repeat("ab", 32)
	url := fmt.Sprintf("weida://127.0.0.1:%d/jobs", closedUDPPort(t))
	cases := []struct {
		name string
		path string
		want string
	}{
		{"a missing file", filepath.Join(dir, "absent"), "weida: cannot read the trust file " + filepath.Join(dir, "absent")},
		{"an empty file", writeFile(t, "empty.keys", []byte("# no members yet\n\n")), "lists no key"},
		{"a malformed line", writeFile(t, "bad.keys", []byte(key+"\nsha256:12\n")), "bad.keys, line 2: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, verb := range []string{"send", "request", "sub"} {
				expectOutcome(t, runWeida(t, nil, verb, "--trust", c.path, url), exitFailure, c.want)
			}
		})
	}
}

// TestTrustFileVouchesForAKeylessURL: send, request and sub to single
// servers whose URL names no key succeed when the trust file lists the
// server's key, and fail Untrusted when it lists only another.
func TestTrustFileVouchesForAKeylessURL(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
	keys := writeFile(t, "servers.keys", []byte("# the three servers\n"+fingerprintOf(t, echo.addr)+"\n"+
		fingerprintOf(t, sink.addr)+" # the sink\n"+fingerprintOf(t, pub.addr)+"\n"))
	other := writeFile(t, "other.keys", []byte("sha256:"+strings.Repeat("0", 64)+"\n"))
	keylessEcho := "weida://" + addrHostPort(t, echo.addr) + "/echo"
	keylessSink := "weida://" + addrHostPort(t, sink.addr) + "/sink"
	keylessPub := "weida://" + addrHostPort(t, pub.addr) + "/feed"

	sub := startWeida(t, false, "sub", "--trust", keys, "--count", "1", keylessPub)
	sub.expectLine(t, `subscribed filter=""`)
	pub.awaitSubscription(t, "t.probe probe")
	if code, stdout, stderr := sub.wait(t); code != exitOK || string(stdout) != "probe\n" {
		t.Fatalf("sub exited %d with stdout %q; stderr:\n%s", code, stdout, stderr)
	}
	expectOutcome(t, runWeida(t, nil, "sub", "--trust", other, "--count", "1", keylessPub), exitUntrusted, "is not among the 1 pinned keys")

	r := runWeida(t, []byte("ping"), "request", "--trust", keys, keylessEcho)
	expectOutcome(t, r, exitOK, "reply bytes=4")
	if string(r.stdout) != "ping" {
		t.Fatalf("the echo answered %q, want %q", r.stdout, "ping")
	}
	received := sink.readStdout(len("payload"))
	expectOutcome(t, runWeida(t, []byte("payload"), "send", "--trust", keys, keylessSink), exitOK, "delivered bytes=7")
	if got := received.wait(t); string(got) != "payload" {
		t.Fatalf("the sink received %q", got)
	}

	for _, verb := range []string{"request", "send"} {
		expectOutcome(t, runWeida(t, []byte("x"), verb, "--trust", other, keylessEcho), exitUntrusted, "is not among the 1 pinned keys")
	}
}
