package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// The child line protocol: the child writes "ready <addr>" once its side
// is up, then answers commands read from stdin, one per line, and ends on
// "quit" or at EOF; a figure set is written as "result <json object>".
// Anything else a child writes (such as "dropped <n>") is handed to the
// parent's onLine hook.

// child is a running child process seen from the parent.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout lines not taken by onLine
	stderr *lockedBuffer
	done   chan struct{} // closed when stdout ended
	exited chan struct{} // closed when the process was waited for
	err    error         // the exit error; read after exited is closed

	writeMu sync.Mutex
}

// startChild starts cmd; onLine, when not nil, sees every stdout line
// first and consumes those it returns true for.
func startChild(cmd *exec.Cmd, onLine func(string) bool) (*child, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 64), stderr: &lockedBuffer{},
		done: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the child %v: %w", cmd.Args, err)
	}
	go func() {
		defer close(c.exited)
		s := bufio.NewScanner(stdout)
		s.Buffer(make([]byte, 64<<10), 1<<20)
		for s.Scan() {
			if onLine != nil && onLine(s.Text()) {
				continue
			}
			c.lines <- s.Text()
		}
		close(c.done)
		// Wait only after stdout was drained (it closes the pipe); once
		// it returns, stderr is complete for error messages.
		c.err = cmd.Wait()
	}()
	return c, nil
}

// send writes one command line.
func (c *child) send(format string, args ...any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := fmt.Fprintf(c.stdin, format+"\n", args...); err != nil {
		return fmt.Errorf("writing to the child: %w%s", err, c.tail())
	}
	return nil
}

// expect waits for the next line, which must start with word, and returns
// the rest of it.
func (c *child) expect(ctx context.Context, word string) (string, error) {
	select {
	case line := <-c.lines:
		rest, ok := strings.CutPrefix(line, word+" ")
		if !ok {
			return "", fmt.Errorf("the child said %q, want %q", line, word)
		}
		return rest, nil
	case <-c.done:
		// Lines written just before the exit may still be queued.
		select {
		case line := <-c.lines:
			if rest, ok := strings.CutPrefix(line, word+" "); ok {
				return rest, nil
			}
		default:
		}
		select {
		case <-c.exited:
		case <-ctx.Done():
		}
		return "", fmt.Errorf("the child ended before saying %q%s", word, c.tail())
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the child to say %q: %w", word, ctx.Err())
	}
}

// expectResult waits for a "result" line and decodes it into v.
func (c *child) expectResult(ctx context.Context, v any) error {
	rest, err := c.expect(ctx, "result")
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(rest), v)
}

// finish tells the child to quit and waits for it; kill instead when ctx
// ends first.
func (c *child) finish(ctx context.Context) error {
	_ = c.send("quit")
	_ = c.stdin.Close()
	select {
	case <-c.exited:
		if c.err != nil {
			return fmt.Errorf("the child failed: %w%s", c.err, c.tail())
		}
		return nil
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("the child did not exit: %w%s", ctx.Err(), c.tail())
	}
}

// tail is the end of the child's stderr, for error messages.
func (c *child) tail() string {
	s := strings.TrimSpace(c.stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return "; its stderr: " + s
}

// lockedBuffer is a buffer that exec's copying goroutine writes while an
// error message may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// childIO is the child's end of the protocol.
type childIO struct {
	in  *bufio.Scanner
	mu  sync.Mutex
	out io.Writer
}

func newChildIO(in io.Reader, out io.Writer) *childIO {
	return &childIO{in: bufio.NewScanner(in), out: out}
}

// say writes one line to the parent.
func (c *childIO) say(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.out, format+"\n", args...)
}

// result writes v as the "result" line.
func (c *childIO) result(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.say("result %s", b)
	return nil
}

// next reads the next command's words; ok is false at EOF.
func (c *childIO) next() (words []string, ok bool) {
	for c.in.Scan() {
		if words := strings.Fields(c.in.Text()); len(words) > 0 {
			return words, true
		}
	}
	return nil, false
}
