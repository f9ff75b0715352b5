package main

// These tests drive the built binary as a subprocess, over real QUIC on
// loopback, the way a shell user does (SURFACE.md §4.3).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// binaryBuildFlags are extra `go build` flags for the binary under test.
var binaryBuildFlags []string

// weidaBinary is the path of the binary TestMain built.
var weidaBinary string

// Bounds that turn a hang into a failure; nothing waits on them to sync.
const (
	commandTimeout = 60 * time.Second
	addressTimeout = 20 * time.Second
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weida-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot make a directory for the binary:", err)
		os.Exit(1)
	}
	weidaBinary = filepath.Join(dir, "weida")
	args := append(append([]string{"build"}, binaryBuildFlags...), "-o", weidaBinary, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build of the weida binary failed: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one finished weida process left behind.
type result struct {
	code   int
	stdout []byte
	stderr string
}

// runWeida runs the binary to completion with stdin as its input.
func runWeida(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, weidaBinary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("weida %q did not finish within %v; stderr:\n%s", args, commandTimeout, stderr.String())
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("weida %q: %v", args, err)
	}
	return result{code: code, stdout: stdout.Bytes(), stderr: stderr.String()}
}

// server is a running `weida serve`.
type server struct {
	cmd    *exec.Cmd
	addr   string        // the address line it printed, without the newline
	stdout *bufio.Reader // what follows the address line
	stderr bytes.Buffer  // read only after stop
	done   bool
}

// startServe runs `weida serve args...` and waits for its address line.
// The process is killed when the test ends, unless stop ended it first.
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(weidaBinary, append([]string{"serve"}, args...)...)}
	s.cmd.Stderr = &s.stderr
	pipe, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.stdout = bufio.NewReader(pipe)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !s.done {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
	})
	type lineResult struct {
		line string
		err  error
	}
	lines := make(chan lineResult, 1)
	go func() {
		line, err := s.stdout.ReadString('\n')
		lines <- lineResult{line, err}
	}()
	select {
	case got := <-lines:
		if got.err != nil {
			code, stderr := s.stop(t)
			t.Fatalf("serve %q printed no address (exit %d): %v; stderr:\n%s", args, code, got.err, stderr)
		}
		s.addr = strings.TrimSuffix(got.line, "\n")
	case <-time.After(addressTimeout):
		t.Fatalf("serve %q printed no address within %v", args, addressTimeout)
	}
	return s
}

// readStdout reads exactly n more bytes of the server's stdout.
func (s *server) readStdout(t *testing.T, n int) []byte {
	t.Helper()
	buf := make([]byte, n)
	read := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(s.stdout, buf)
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			t.Fatalf("reading %d bytes of serve's stdout: %v", n, err)
		}
	case <-time.After(commandTimeout):
		t.Fatalf("serve's stdout did not carry %d bytes within %v", n, commandTimeout)
	}
	return buf
}

// stop sends SIGTERM, serve's ordinary end, and returns the exit status and
// everything serve wrote on stderr.
func (s *server) stop(t *testing.T) (int, string) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() { waited <- s.cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(commandTimeout):
		t.Fatalf("serve did not stop within %v of SIGTERM", commandTimeout)
	}
	s.done = true
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), s.stderr.String()
	}
	return 0, s.stderr.String()
}

var fingerprintInAddress = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// fingerprintOf is the key an address names.
func fingerprintOf(t *testing.T, addr string) string {
	t.Helper()
	fp := fingerprintInAddress.FindString(addr)
	if fp == "" {
		t.Fatalf("address %q names no fingerprint", addr)
	}
	return fp
}

// withPath replaces the endpoint path of a weida:// address.
func withPath(t *testing.T, addr, path string) string {
	t.Helper()
	a, err := weida.ParseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.WithPath(path).String()
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedUDPPort is a loopback port nothing listens on.
func closedUDPPort(t *testing.T) int {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := conn.LocalAddr().(*net.UDPAddr).Port
	conn.Close()
	return port
}

// expectOutcome checks the exit status, that stderr mentions want, and,
// for every failure, that nothing reached stdout.
func expectOutcome(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, code, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not mention %q:\n%s", want, r.stderr)
	}
	if code != exitOK && len(r.stdout) != 0 {
		t.Errorf("a failure wrote %d bytes to stdout: %q", len(r.stdout), r.stdout)
	}
}

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
		{"option of another verb", []string{"send", "--identity", "x", url}, `unknown option "--identity"`},
		{"option before the verb", []string{"--ca", "x", "send", url}, `unknown option "--ca"`},
		{"missing URL", []string{"request"}, "weida: missing URL"},
		{"option without value", []string{"send", url, "--ca"}, "weida: option --ca needs a value"},
		{"third argument", []string{"send", url, "file", "extra"}, `weida: unexpected argument "extra"`},
		{"serve without a role", []string{"serve", url}, "weida: serve needs a role"},
		{"serve with two roles", []string{"serve", "--echo", "--sink", url}, "serve takes one role"},
		{"serve with a file", []string{"serve", "--echo", url, "file"}, `unexpected argument "file"`},
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
		{[]string{"--help"}, []string{"send", "request", "serve", "--ca", "--echo", "--sink", "--identity", "--cert-out"}},
		{[]string{"-h"}, []string{"send", "request", "serve"}},
		{[]string{"help"}, []string{"send", "request", "serve"}},
		{[]string{"send", "weida://127.0.0.1:9/x", "--help"}, []string{"send", "request", "serve"}},
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

// addrHostPort is the host:port of a printed address.
func addrHostPort(t *testing.T, addr string) string {
	t.Helper()
	a, err := weida.ParseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.HostPort()
}

func TestFailuresExitByKindWithEmptyStdout(t *testing.T) {
	t.Parallel()
	echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	realKey := fingerprintOf(t, echo.addr)
	zeroKey := "sha256:" + strings.Repeat("0", 64)
	wrongCA := writeFile(t, "other-ca.pem", mustGenerateCertificatePEM(t))

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown path", []string{"request", withPath(t, echo.addr, "/nowhere")}, exitUnknownEndpoint, "weida: "},
		{"untrusted key", []string{"request", strings.Replace(echo.addr, realKey, zeroKey, 1)}, exitUntrusted,
			"weida: the peer presented " + realKey + ", which is not trusted"},
		{"request refused by a sink", []string{"request", sink.addr}, exitRejected, "weida: "},
		{"one-way transfer refused by an echo", []string{"send", echo.addr}, exitRejected,
			fmt.Sprintf("undelivered bytes=%d: ", 4<<20)},
		{"no reply", []string{"request", startSilentServer(t)}, exitNoReply, "weida: "},
		{"closed port", []string{"request", fmt.Sprintf("weida://%s@127.0.0.1:%d/echo", zeroKey, closedUDPPort(t))},
			exitDisconnected, "weida: "},
		{"missing payload file", []string{"send", echo.addr, filepath.Join(t.TempDir(), "absent")}, exitFailure,
			"weida: cannot read the payload"},
		{"unreadable CA file", []string{"request", "--ca", filepath.Join(t.TempDir(), "absent"), echo.addr}, exitFailure, "weida: "},
		{"bad URL", []string{"request", "http://127.0.0.1:9/echo"}, exitFailure, "weida: invalid address"},
	}
	// Beyond the 1 MiB stream window the echo's refusal is certain to reach
	// the sender before the receipt could (SURFACE.md §1.8).
	payload := randomBytes(t, 4<<20)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			expectOutcome(t, runWeida(t, payload, c.args...), c.code, c.want)
		})
	}
	t.Run("wrong CA", func(t *testing.T) {
		t.Parallel()
		plain := "weida://" + addrHostPort(t, echo.addr) + "/echo"
		r := runWeida(t, []byte("ping"), "request", plain, "--ca", wrongCA)
		if r.code != exitUntrusted && r.code != exitFailure {
			t.Errorf("exit %d, want %d or %d; stderr:\n%s", r.code, exitUntrusted, exitFailure, r.stderr)
		}
		if len(r.stdout) != 0 {
			t.Errorf("a failure wrote to stdout: %q", r.stdout)
		}
	})
}

// mustGenerateCertificatePEM is a CA certificate that signed no server here.
func mustGenerateCertificatePEM(t *testing.T) []byte {
	t.Helper()
	id, err := weida.GenerateIdentityFor([]string{"localhost", "127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	return id.CertificatePEM()
}

// startSilentServer serves /silent in this process with the library:
// every exchange is released unanswered, which the requester sees as
// NO_REPLY. serve has no such role, and exit 5 needs one.
func startSilentServer(t *testing.T) string {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := rt.Listener().Acceptor("/silent")
	if err != nil {
		t.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			in, err := acc.Accept(context.Background())
			if err != nil {
				return
			}
			if ex, ok := in.(*weida.IncomingExchange); ok {
				_ = ex.Close()
			}
		}
	}()
	return binding.URL("/silent")
}

func TestSendDeliversToSink(t *testing.T) {
	t.Parallel()
	sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
	payloads := [][]byte{[]byte("first payload\n"), randomBytes(t, 3<<20)}
	for _, p := range payloads {
		r := runWeida(t, p, "send", sink.addr)
		expectOutcome(t, r, exitOK, fmt.Sprintf("delivered bytes=%d\n", len(p)))
		if len(r.stdout) != 0 {
			t.Errorf("send wrote to stdout: %q", r.stdout)
		}
		if got := sink.readStdout(t, len(p)); !bytes.Equal(got, p) {
			t.Errorf("the sink wrote sha256 %x, want %x", sha256.Sum256(got), sha256.Sum256(p))
		}
	}
	code, stderr := sink.stop(t)
	if code != exitOK {
		t.Errorf("serve exited %d on SIGTERM, want 0; stderr:\n%s", code, stderr)
	}
	for _, p := range payloads {
		if want := fmt.Sprintf("received bytes=%d\n", len(p)); !strings.Contains(stderr, want) {
			t.Errorf("the sink's stderr lacks %q:\n%s", want, stderr)
		}
	}
	if rest, _ := io.ReadAll(sink.stdout); len(rest) != 0 {
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
		code, stderr := s.stop(t)
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
	if _, stderr := echo.stop(t); !strings.Contains(stderr, "wrote the certificate to "+certPath+"\n") {
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
