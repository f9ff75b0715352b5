package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// serveProcess is one `weida serve` child process: the Go CLI serving one
// path on loopback, as bindings/python/bench.py's --server process starts it.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string     // the dialling address it printed
	exited chan error // receives Wait's result once the process ended
}

// maxAddressLine bounds the first line serve prints, its dialling address
// (a weida:// URL with a certificate hash: about a hundred bytes).
const maxAddressLine = 4 << 10

// startServe starts `cli serve role weida://127.0.0.1:0<path>` and waits
// for the dialling address it prints as its first line of stdout. For a
// sink, messages counts the bytes after that line in messages of its size;
// nil ignores them. Its stderr (a line per request or transfer) is
// discarded.
func startServe(ctx context.Context, cli, role, path string, messages *counter) (*serveProcess, error) {
	out := &serveOutput{address: make(chan string, 1), messages: messages}
	cmd := exec.CommandContext(ctx, cli, "serve", role, "weida://127.0.0.1:0"+path)
	cmd.Stdout = out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s serve %s: %w", cli, role, err)
	}
	p := &serveProcess{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	select {
	case p.url = <-out.address:
		return p, nil
	case err := <-p.exited:
		return nil, fmt.Errorf("%s serve %s ended before printing its address: %w", cli, role, errors.Join(err, out.err))
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-p.exited
		return nil, fmt.Errorf("%s serve %s printed no address: %w", cli, role, ctx.Err())
	}
}

// close stops the process as an operator would (SIGTERM, after which serve
// drains and exits 0) and says how it ended.
func (p *serveProcess) close() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	if err := <-p.exited; err != nil {
		return fmt.Errorf("%s serve: %w", p.cmd.Path, err)
	}
	return nil
}

// serveOutput is a serve process's stdout. Its first line is the dialling
// address; everything after it is a sink's payloads, back to back, counted
// in whole messages. exec's copying goroutine is its only writer.
type serveOutput struct {
	address  chan string // receives the first line, once
	line     []byte      // the first line so far
	sent     bool        // the address was sent
	messages *counter    // nil: the bytes after the address are not counted
	payload  int64       // payload bytes so far
	err      error       // why the address could not be read
}

// Write implements io.Writer.
func (o *serveOutput) Write(p []byte) (int, error) {
	n := len(p)
	if !o.sent {
		end := bytes.IndexByte(p, '\n')
		if end < 0 {
			if len(o.line)+len(p) > maxAddressLine {
				o.err = fmt.Errorf("its first line is over %d bytes, not an address", maxAddressLine)
				return 0, o.err
			}
			o.line = append(o.line, p...)
			return n, nil
		}
		o.line = append(o.line, p[:end]...)
		o.sent = true
		o.address <- string(o.line)
		p = p[end+1:]
	}
	if o.messages != nil && len(p) > 0 {
		before := o.payload / int64(o.messages.size)
		o.payload += int64(len(p))
		if whole := o.payload/int64(o.messages.size) - before; whole > 0 {
			o.messages.add(whole)
		}
	}
	return n, nil
}
