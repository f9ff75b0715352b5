package main

// The harness of cli_test.go: it builds the binary once and runs it as a
// subprocess, as a shell user does.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
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

// TestMain builds the binary once for every test.
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

// stdoutRead is a read of serve's stdout in progress.
type stdoutRead struct {
	n    int
	data []byte
	err  chan error
}

// readStdout starts reading exactly n more bytes of serve's stdout. It must
// run while the payload flows: a pipe holds only so much, and a sink blocked
// on its stdout stops reading the transfer it is writing.
func (s *server) readStdout(n int) *stdoutRead {
	r := &stdoutRead{n: n, data: make([]byte, n), err: make(chan error, 1)}
	go func() {
		_, err := io.ReadFull(s.stdout, r.data)
		r.err <- err
	}()
	return r
}

// wait returns the bytes read.
func (r *stdoutRead) wait(t *testing.T) []byte {
	t.Helper()
	select {
	case err := <-r.err:
		if err != nil {
			t.Fatalf("reading %d bytes of serve's stdout: %v", r.n, err)
		}
	case <-time.After(commandTimeout):
		t.Fatalf("serve's stdout did not carry %d bytes within %v", r.n, commandTimeout)
	}
	return r.data
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

// randomBytes is n bytes no test could mistake for anything else.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes data to a file in a fresh temporary directory.
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

// addrHostPort is the host:port of a printed address.
func addrHostPort(t *testing.T, addr string) string {
	t.Helper()
	a, err := weida.ParseAddress(addr)
	if err != nil {
		t.Fatal(err)
	}
	return a.HostPort()
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
