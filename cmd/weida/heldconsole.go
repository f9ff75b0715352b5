package main

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"
)

// consoleHold bounds how long a payload or report line may sit in a
// heldConsole's buffers before it reaches stdout or stderr.
const consoleHold = time.Millisecond

// heldConsole is serve's stdout and stderr for a burst of small pieces:
// payloads and report lines are buffered and written out when the server
// has nothing waiting (flush), and otherwise within the hold, so under
// load many small messages cost one write to stdout and one to stderr
// instead of a system call apiece, while each still shows promptly. A
// report line never reaches stderr before the payload it reports reached
// stdout. Safe for concurrent use.
type heldConsole struct {
	mu       sync.Mutex
	out, err *bufio.Writer
	stdout   io.Writer // unbuffered, for payloads that stream
	stderr   io.Writer
	hold     time.Duration // consoleHold; tests lengthen it
	timer    *time.Timer   // flushes held bytes within hold
	armed    bool
}

func newHeldConsole(con console, hold time.Duration) *heldConsole {
	w := &heldConsole{out: bufio.NewWriterSize(con.out, 64<<10), err: bufio.NewWriter(con.err),
		stdout: con.out, stderr: con.err, hold: hold}
	w.timer = time.AfterFunc(time.Hour, w.flush)
	w.timer.Stop()
	return w
}

// stdoutHeld is stdout through the buffer.
func (w *heldConsole) stdoutHeld() io.Writer { return heldOut{w} }

// heldOut writes a payload into a heldConsole's stdout buffer.
type heldOut struct{ w *heldConsole }

func (h heldOut) Write(p []byte) (int, error) {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	n, err := h.w.out.Write(p)
	h.w.armLocked()
	return n, err
}

// report holds one line for stderr.
func (w *heldConsole) report(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.err, format, args...)
	w.armLocked()
}

// armLocked starts the hold timer when the buffers newly hold bytes.
func (w *heldConsole) armLocked() {
	if !w.armed && w.out.Buffered()+w.err.Buffered() > 0 {
		w.armed = true
		w.timer.Reset(w.hold)
	}
}

// flush writes out what the buffers hold, stdout first. When stdout fails
// (a full disk, say), the held report lines would claim payloads that did
// not land, so they are replaced by one line saying so.
func (w *heldConsole) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.armed {
		w.armed = false
		w.timer.Stop()
	}
	if err := w.out.Flush(); err != nil {
		w.out.Reset(w.stdout) // later transfers try again
		w.err.Reset(w.stderr)
		fmt.Fprintf(w.err, "weida: writing to stdout failed: %v (the transfers received since the last write are not all on stdout)\n", err)
	}
	_ = w.err.Flush()
}
