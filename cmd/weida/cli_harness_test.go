package main

// The harness of the CLI tests: it builds the binary once and runs it as a
// subprocess, as a shell user does, reading its output as it comes so a
// test can wait for a line instead of sleeping.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binaryBuildFlags are extra `go build` flags for the binary under test.
var binaryBuildFlags []string

// weidaBinary is the path of the binary TestMain built.
var weidaBinary string

// Bounds that turn a hang into a failure; nothing waits on them to sync.
const (
	commandTimeout = 60 * time.Second
	lineTimeout    = 20 * time.Second
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
	return result{code: exitStatus(t, args, err), stdout: stdout.Bytes(), stderr: stderr.String()}
}

// exitStatus is the status a process that ended with err exited with.
func exitStatus(t *testing.T, args []string, err error) int {
	t.Helper()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return exitErr.ExitCode()
	case err != nil:
		t.Fatalf("weida %q: %v", args, err)
	}
	return 0
}

// proc is a weida process running beside the test: a serve, or a sub.
type proc struct {
	args   []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser // nil unless started fed
	stdout *bufio.Reader
	stderr *lineLog
	read   int    // stderr lines expectLine has consumed
	addr   string // serve's address line, without the newline
	ended  bool
}

// startWeida runs weida with args in the background. A fed process gets a
// pipe as stdin (proc.stdin); any other reads an empty stdin. The process
// is killed when the test ends, unless it ended first.
func startWeida(t *testing.T, fed bool, args ...string) *proc {
	t.Helper()
	p := &proc{args: args, cmd: exec.Command(weidaBinary, args...), stderr: newLineLog()}
	var err error
	if fed {
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReader(stdout)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.stderr.collect(stderr)
	t.Cleanup(func() {
		if !p.ended {
			// Wait closes the pipes under any reader still running; what
			// they would have read no longer matters.
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// startServe runs `weida serve args...` and waits for its address line.
func startServe(t *testing.T, args ...string) *proc {
	t.Helper()
	return awaitAddress(t, startWeida(t, false, append([]string{"serve"}, args...)...))
}

// startServeFed is startServe with a pipe as stdin, for --pub.
func startServeFed(t *testing.T, args ...string) *proc {
	t.Helper()
	return awaitAddress(t, startWeida(t, true, append([]string{"serve"}, args...)...))
}

// awaitAddress reads serve's first line of stdout, its address.
func awaitAddress(t *testing.T, p *proc) *proc {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := p.stdout.ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		if !strings.HasSuffix(line, "\n") {
			code, _, stderr := p.stop(t)
			t.Fatalf("%q printed no address (exit %d); stderr:\n%s", p.args, code, stderr)
		}
		p.addr = strings.TrimSuffix(line, "\n")
	case <-time.After(lineTimeout):
		t.Fatalf("%q printed no address within %v", p.args, lineTimeout)
	}
	return p
}

// expectLine waits for a line of stderr equal to want, past the lines
// consumed so far, and consumes it and every line before it.
func (p *proc) expectLine(t *testing.T, want string) {
	t.Helper()
	p.expectMatch(t, regexp.MustCompile("^"+regexp.QuoteMeta(want)+"$"))
}

// expectMatch is expectLine for a pattern; it returns the submatches.
func (p *proc) expectMatch(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	var match []string
	next, ok := p.stderr.await(p.read, lineTimeout, func(line string) bool {
		match = re.FindStringSubmatch(line)
		return match != nil
	})
	if !ok {
		t.Fatalf("%q wrote no stderr line matching %q; stderr:\n%s", p.args, re, p.stderr.text())
	}
	p.read = next
	return match
}

// stdoutRead is a read of a process's stdout in progress.
type stdoutRead struct {
	n    int
	data []byte
	err  chan error
}

// readStdout starts reading exactly n more bytes of stdout. It must run
// while the payload flows: a pipe holds only so much, and a sink blocked on
// its stdout stops reading the transfer it is writing.
func (p *proc) readStdout(n int) *stdoutRead {
	r := &stdoutRead{n: n, data: make([]byte, n), err: make(chan error, 1)}
	go func() {
		_, err := io.ReadFull(p.stdout, r.data)
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
			t.Fatalf("reading %d bytes of stdout: %v", r.n, err)
		}
	case <-time.After(commandTimeout):
		t.Fatalf("stdout did not carry %d bytes within %v", r.n, commandTimeout)
	}
	return r.data
}

// stop sends SIGTERM, serve's ordinary end, and returns what wait does.
func (p *proc) stop(t *testing.T) (code int, stdout []byte, stderr string) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	return p.wait(t)
}

// endStdin closes a fed process's stdin, --pub's ordinary end.
func (p *proc) endStdin(t *testing.T) {
	t.Helper()
	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the process to exit and returns its status, the rest of
// its stdout, and all of its stderr.
func (p *proc) wait(t *testing.T) (code int, stdout []byte, stderr string) {
	t.Helper()
	type outcome struct {
		rest []byte
		err  error
	}
	ended := make(chan outcome, 1)
	go func() {
		// Wait closes the pipes, so it comes after every read.
		rest, _ := io.ReadAll(p.stdout)
		p.stderr.awaitEnd(commandTimeout)
		ended <- outcome{rest, p.cmd.Wait()}
	}()
	select {
	case o := <-ended:
		p.ended = true
		return exitStatus(t, p.args, o.err), o.rest, p.stderr.text()
	case <-time.After(commandTimeout):
		t.Fatalf("%q did not exit within %v; stderr:\n%s", p.args, commandTimeout, p.stderr.text())
	}
	panic("unreachable")
}

// lineLog is a process's stderr, line by line as it arrives.
type lineLog struct {
	mu      sync.Mutex
	lines   []string
	ended   bool
	changed chan struct{} // closed and replaced at every new line and at the end
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

// collect reads r into the log until it ends.
func (l *lineLog) collect(r io.Reader) {
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		l.mu.Lock()
		l.lines = append(l.lines, scanner.Text())
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.ended = true
	close(l.changed)
	l.mu.Unlock()
}

// await waits up to timeout for a line at index from or later that
// matches, and returns the index after it.
func (l *lineLog) await(from int, timeout time.Duration, match func(string) bool) (int, bool) {
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for ; from < len(l.lines); from++ {
			if match(l.lines[from]) {
				l.mu.Unlock()
				return from + 1, true
			}
		}
		ended, changed := l.ended, l.changed
		l.mu.Unlock()
		if ended {
			return from, false
		}
		select {
		case <-changed:
		case <-deadline:
			return from, false
		}
	}
}

// awaitEnd waits up to timeout for the stream to end.
func (l *lineLog) awaitEnd(timeout time.Duration) {
	l.await(0, timeout, func(string) bool { return false })
}

// text is every line so far, each with its newline.
func (l *lineLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, line := range l.lines {
		b.WriteString(line + "\n")
	}
	return b.String()
}
