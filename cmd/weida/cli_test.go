package main

// These tests drive the built binary as a subprocess, over real QUIC on
// loopback, the way a shell user does (SURFACE.md §4.3). The harness is in
// cli_harness_test.go.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	const url = "weida://127.0.0.1:9/echo"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no verb", nil, "weida: no verb given"},
		{"unknown verb", []string{"frobnicate", url}, `weida: unknown verb "frobnicate"`},
		{"unknown option", []string{"send", "--bogus", url}, `weida: unknown option "--bogus"`},
		{"option of another verb", []string{"send", "--cert-out", "x", url}, `unknown option "--cert-out"`},
		{"option before the verb", []string{"--ca", "x", "send", url}, `unknown option "--ca"`},
		{"missing URL", []string{"request"}, "weida: missing URL"},
		{"option without value", []string{"send", url, "--ca"}, "weida: option --ca needs a value"},
		{"third argument", []string{"send", url, "file", "extra"}, `weida: unexpected argument "extra"`},
		{"serve without a role", []string{"serve", url}, "weida: serve needs a role"},
		{"serve with two roles", []string{"serve", "--echo", "--sink", url}, "serve takes one role"},
		{"serve with a file", []string{"serve", "--echo", url, "file"}, `unexpected argument "file"`},
		{"serve with pub and echo", []string{"serve", "--pub", "--echo", url}, "serve takes one role"},
		{"sub with a file", []string{"sub", url, "file"}, `unexpected argument "file": sub takes only a URL`},
		{"sub count not a number", []string{"sub", "--count", "ten", url}, `weida: --count "ten" is not a whole number`},
		{"sub count fractional", []string{"sub", "--count", "1.5", url}, `weida: --count "1.5" is not a whole number`},
		{"sub count negative", []string{"sub", "--count", "-1", url}, "weida: option --count needs a value"},
		{"sub unknown framing", []string{"sub", "--framing", "csv", url}, `weida: --framing "csv" is not one of line, raw, nul, length`},
		{"sub framing without value", []string{"sub", url, "--framing"}, "weida: option --framing needs a value"},
		{"filter on send", []string{"send", "--filter", "x", url}, `unknown option "--filter" for send`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			expectOutcome(t, runWeida(t, nil, c.args...), exitUsage, c.want)
		})
	}
}

func TestHelpAndVersionOnStdout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"send", "request", "sub", "serve", "--ca", "--trust FILE", "--filter", "--count", "--framing",
			"--echo", "--sink", "--pub", "--identity", "--cert-out"}},
		{[]string{"-h"}, []string{"send", "request", "sub", "serve"}},
		{[]string{"help"}, []string{"send", "request", "sub", "serve"}},
		{[]string{"sub", "weida://127.0.0.1:9/x", "--help"}, []string{"send", "request", "sub", "serve"}},
		{[]string{"--version"}, []string{"weida " + version + "\n"}},
		{[]string{"-V"}, []string{"weida " + version + "\n"}},
		{[]string{"serve", "-V"}, []string{"weida " + version + "\n"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runWeida(t, nil, c.args...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, want 0 and an empty stderr; stderr:\n%s", r.code, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(string(r.stdout), w) {
					t.Errorf("stdout does not contain %q:\n%s", w, r.stdout)
				}
			}
		})
	}
	if r := runWeida(t, nil, "--version"); !strings.HasPrefix(string(r.stdout), "weida ") {
		t.Errorf("--version printed %q, want it to start with \"weida \"", r.stdout)
	}
}

func TestRequestRoundTripsThroughEcho(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
	if !strings.HasPrefix(echo.addr, "weida://sha256:") || !strings.HasSuffix(echo.addr, "@"+addrHostPort(t, echo.addr)+"/echo") {
		t.Fatalf("serve printed %q, want weida://sha256:…@127.0.0.1:PORT/echo", echo.addr)
	}
	big := randomBytes(t, 5<<20)
	cases := []struct {
		name    string
		payload []byte
		asFile  bool
	}{
		{"text on stdin", []byte("hello from a test"), false},
		{"empty", nil, false},
		{"5 MiB from FILE", big, true},
		{"5 MiB on stdin", big, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var r result
			if c.asFile {
				r = runWeida(t, nil, "request", echo.addr, writeFile(t, "payload", c.payload))
			} else {
				r = runWeida(t, c.payload, "request", echo.addr)
			}
			expectOutcome(t, r, exitOK, fmt.Sprintf("reply bytes=%d\n", len(c.payload)))
			if !bytes.Equal(r.stdout, c.payload) {
				t.Errorf("reply sha256 %x (%d bytes), want %x (%d bytes)",
					sha256.Sum256(r.stdout), len(r.stdout), sha256.Sum256(c.payload), len(c.payload))
			}
		})
	}
}

func TestFailuresExitByKindWithEmptyStdout(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	pub := startServeFed(t, "--pub", "weida://127.0.0.1:0/feed")
	library := startLibraryServer(t)
	realKey := fingerprintOf(t, echo.addr)
	zeroKey := "sha256:" + strings.Repeat("0", 64)
	untrusted := strings.Replace(echo.addr, realKey, zeroKey, 1)
	closed := fmt.Sprintf("weida://%s@127.0.0.1:%d/echo", zeroKey, closedUDPPort(t))
	// Beyond the 1 MiB stream window a refusal is certain to reach the
	// sender before the receipt could (SURFACE.md §1.8).
	payload := randomBytes(t, 4<<20)
	undelivered := fmt.Sprintf("undelivered bytes=%d: ", len(payload))

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"request refused", []string{"request", withPath(t, library, "/refuse")}, exitRejected, "weida: "},
		{"send above the puller's ceiling", []string{"send", withPath(t, library, "/small")}, exitRejected, undelivered},
		{"request to an unknown path", []string{"request", withPath(t, echo.addr, "/nowhere")}, exitUnknownEndpoint, "weida: "},
		{"no reply", []string{"request", library}, exitNoReply, "weida: "},
		{"request to an untrusted key", []string{"request", untrusted}, exitUntrusted,
			"weida: the peer presented " + realKey + ", which is not trusted"},
		{"send to an untrusted key", []string{"send", untrusted}, exitUntrusted, "which is not trusted"},
		{"sub to an untrusted key", []string{"sub", untrusted}, exitUntrusted, "which is not trusted"},
		{"request to a closed port", []string{"request", closed}, exitDisconnected, "weida: "},
		{"send to a closed port", []string{"send", closed}, exitDisconnected, "weida: "},
		{"sub to a closed port", []string{"sub", closed}, exitDisconnected, "weida: "},
		{"request to a sink", []string{"request", sink.addr}, exitFailure, "weida: the path does not serve exchanges"},
		{"request to a publisher", []string{"request", pub.addr}, exitFailure, "weida: the path does not serve exchanges"},
		{"send to an echo", []string{"send", echo.addr}, exitFailure, undelivered},
		{"sub with an invalid filter", []string{"sub", "--filter", "px.#.eur", pub.addr}, exitFailure,
			`weida: invalid filter`},
		{"missing payload file", []string{"send", echo.addr, filepath.Join(t.TempDir(), "absent")}, exitFailure,
			"weida: cannot read the payload"},
		{"unreadable CA file", []string{"request", "--ca", filepath.Join(t.TempDir(), "absent"), echo.addr}, exitFailure, "weida: "},
		{"bad URL", []string{"request", "http://127.0.0.1:9/echo"}, exitFailure, "weida: invalid address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			expectOutcome(t, runWeida(t, payload, c.args...), c.code, c.want)
		})
	}
	t.Run("wrong CA", func(t *testing.T) {
		t.Parallel()
		plain := "weida://" + addrHostPort(t, echo.addr) + "/echo"
		wrongCA := writeFile(t, "other-ca.pem", mustGenerateCertificatePEM(t))
		r := runWeida(t, []byte("ping"), "request", plain, "--ca", wrongCA)
		if r.code != exitUntrusted && r.code != exitFailure {
			t.Errorf("exit %d, want %d or %d; stderr:\n%s", r.code, exitUntrusted, exitFailure, r.stderr)
		}
		if len(r.stdout) != 0 {
			t.Errorf("a failure wrote to stdout: %q", r.stdout)
		}
	})
}

func TestSendDeliversToSink(t *testing.T) {
	t.Parallel()
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	// The 4 MiB payload is the one that used to lose its tail: the receipt
	// proves only that the sink's QUIC stack holds the bytes, and send's
	// exit closed the connection under them. send's drain now waits until
	// the sink has read them.
	payloads := [][]byte{[]byte("first payload\n"), randomBytes(t, 1<<10), randomBytes(t, 4<<20)}
	for _, p := range payloads {
		written := sink.readStdout(len(p))
		r := runWeida(t, p, "send", sink.addr)
		expectOutcome(t, r, exitOK, fmt.Sprintf("delivered bytes=%d\n", len(p)))
		if len(r.stdout) != 0 {
			t.Errorf("send wrote to stdout: %q", r.stdout)
		}
		if got := written.wait(t); !bytes.Equal(got, p) {
			t.Fatalf("the sink wrote sha256 %x, want %x", sha256.Sum256(got), sha256.Sum256(p))
		}
		sink.expectLine(t, fmt.Sprintf("received bytes=%d", len(p)))
	}
	code, rest, stderr := sink.stop(t)
	if code != exitOK {
		t.Errorf("serve exited %d on SIGTERM, want 0; stderr:\n%s", code, stderr)
	}
	if len(rest) != 0 {
		t.Errorf("the sink wrote %d bytes beyond the payloads", len(rest))
	}
}

func TestServeIdentityKeepsTheAddress(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server.pem")
	url := fmt.Sprintf("weida://127.0.0.1:%d/echo", closedUDPPort(t))
	var addrs []string
	for run := range 2 {
		s := startServe(t, "--echo", url, "--identity", path)
		addrs = append(addrs, s.addr)
		code, _, stderr := s.stop(t)
		if code != exitOK {
			t.Fatalf("serve exited %d on SIGTERM; stderr:\n%s", code, stderr)
		}
		generated := strings.Contains(stderr, "generated an identity in "+path+"\n")
		if generated != (run == 0) {
			t.Errorf("run %d: stderr reports a generated identity: %v, want %v:\n%s", run, generated, run == 0, stderr)
		}
	}
	if addrs[0] != addrs[1] {
		t.Errorf("the address changed across restarts: %q, then %q", addrs[0], addrs[1])
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("identity file mode %v, want 0600", mode)
	}
}

func TestCertOutServesCAClients(t *testing.T) {
	t.Parallel()
	certPath := filepath.Join(t.TempDir(), "server-cert.pem")
	echo := startServe(t, "--cert-out", certPath, "--echo", "weida://127.0.0.1:0/echo")
	cert, err := os.ReadFile(certPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(cert, []byte("BEGIN CERTIFICATE")) || bytes.Contains(cert, []byte("PRIVATE KEY")) {
		t.Fatalf("--cert-out wrote something other than certificates only:\n%s", cert)
	}
	// A plain address (no key) with the option after the URL.
	plain := "weida://" + addrHostPort(t, echo.addr) + "/echo"
	r := runWeida(t, []byte("hello over an anchor"), "request", plain, "--ca", certPath)
	expectOutcome(t, r, exitOK, "reply bytes=20\n")
	if string(r.stdout) != "hello over an anchor" {
		t.Errorf("reply %q", r.stdout)
	}
	// With --trust as well both vouch: a file naming another key leaves
	// the anchor to.
	other := writeFile(t, "other.keys", []byte("sha256:"+strings.Repeat("0", 64)+"\n"))
	expectOutcome(t, runWeida(t, []byte("both"), "request", "--trust", other, "--ca", certPath, plain), exitOK, "reply bytes=4\n")
	if _, _, stderr := echo.stop(t); !strings.Contains(stderr, "wrote the certificate to "+certPath+"\n") {
		t.Errorf("serve's stderr does not report the certificate:\n%s", stderr)
	}
}

func TestServeRefusesBadBindAddresses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		url  string
		want string
	}{
		{"fingerprint", "weida://sha256:" + strings.Repeat("0", 64) + "@127.0.0.1:0/echo", "carries no fingerprint"},
		{"host name", "weida://localhost:0/echo", "not an IP literal"},
		{"no path", "weida://127.0.0.1:0", "missing the endpoint path"},
		{"in-process bus", "weida+inproc://bus/echo", "weida: cannot serve"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			expectOutcome(t, runWeida(t, nil, "serve", "--echo", c.url), exitFailure, c.want)
		})
	}
}
