package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	weida "github.com/weida-go/weida/core"
)

// claimSink registers a puller at path whose every transfer's payload is
// copied to stdout as it arrives. Exchanges at the path are refused
// Unsupported by the library: a puller takes one-way transfers only.
func claimSink(l *weida.Listener, path string, con console) (serveLoop, error) {
	puller, err := l.Puller(path)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, finishBy func() time.Time) error {
		return sinkLoop(ctx, puller, con, finishBy)
	}, nil
}

// sinkBacklog is how many received transfers may wait for the writer. While
// some wait, small ones are written to stdout together (sinkWriter).
const sinkBacklog = 256

// sinkLoop writes transfers to stdout one at a time: payloads follow each
// other with no separator, so two at once would interleave beyond repair.
// The writing happens on a worker because a read waiting on the network
// takes no context: the loop stays free to see a signal, stop taking
// transfers, and give the one being written until finishBy() to end.
func sinkLoop(ctx context.Context, puller *weida.Puller, con console, finishBy func() time.Time) error {
	work := inHand{noun: "transfer"}
	transfers := make(chan *weida.IncomingTransfer, sinkBacklog)
	w := newSinkWriter(con, sinkHold)
	go func() {
		for t := range transfers {
			w.transfer(t)
			if len(transfers) == 0 {
				w.flush() // nothing waits: whatever was held back goes out now
			}
			work.end()
		}
	}()
	defer func() {
		close(transfers)
		work.finish(finishBy, con.err)
		w.flush() // what the last transfers left held, even past the deadline
	}()
	for {
		t, err := puller.RecvStream(ctx)
		if err != nil {
			return err
		}
		// Counted before the handover, so a stop never misses a transfer
		// the worker is about to take.
		work.begin()
		select {
		case transfers <- t:
		case <-ctx.Done():
			work.end()
			_ = t.Close() // never started: refused, so its sender learns
			return ctx.Err()
		}
	}
}

// sinkSmall is the largest declared payload a sinkWriter holds back; a
// larger or undeclared one streams to stdout as it arrives.
const sinkSmall = 16 << 10

// sinkHold bounds how long a payload or report line may sit in a
// sinkWriter's buffers before it reaches stdout or stderr.
const sinkHold = time.Millisecond

// sinkWriter copies transfers to stdout and reports each on stderr. Small
// payloads and the report lines are buffered and written out whenever no
// transfer waits, and otherwise within sinkHold: under a backlog many small
// messages cost one write to stdout and one to stderr instead of two
// system calls apiece, while every message still shows promptly. A report
// line never reaches stderr before its payload reached stdout.
type sinkWriter struct {
	mu       sync.Mutex
	out, err *bufio.Writer
	stdout   io.Writer // unbuffered, for payloads that stream
	stderr   io.Writer
	hold     time.Duration // sinkHold; tests lengthen it
	timer    *time.Timer   // flushes held bytes within hold
	armed    bool
}

func newSinkWriter(con console, hold time.Duration) *sinkWriter {
	w := &sinkWriter{out: bufio.NewWriterSize(con.out, 4*sinkSmall), err: bufio.NewWriter(con.err),
		stdout: con.out, stderr: con.err, hold: hold}
	w.timer = time.AfterFunc(time.Hour, w.flush)
	w.timer.Stop()
	return w
}

// transfer copies one payload and reports it. A transfer that fails
// part-way has already put some bytes on stdout; the report says how many,
// so a reader can tell where the damage is.
func (w *sinkWriter) transfer(t *weida.IncomingTransfer) {
	dst := io.Writer(heldOut{w})
	if n, ok := t.Meta().ContentLen(); !ok || n > sinkSmall {
		w.flush() // what came before goes first
		dst = w.stdout
	}
	n, err := copyInPieces(dst, t, nil)
	_ = t.Close() // after EOF a no-op; before it, stops the sender
	if err != nil {
		w.report("weida: transfer failed after %d bytes: %v\n", n, err)
		return
	}
	w.report("received bytes=%d\n", n)
}

// heldOut writes a payload into the sinkWriter's stdout buffer.
type heldOut struct{ w *sinkWriter }

func (h heldOut) Write(p []byte) (int, error) {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	n, err := h.w.out.Write(p)
	h.w.armLocked()
	return n, err
}

// report holds one line for stderr.
func (w *sinkWriter) report(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.err, format, args...)
	w.armLocked()
}

// armLocked starts the hold timer when the buffers newly hold bytes.
func (w *sinkWriter) armLocked() {
	if !w.armed && w.out.Buffered()+w.err.Buffered() > 0 {
		w.armed = true
		w.timer.Reset(w.hold)
	}
}

// flush writes out what the buffers hold, stdout first. When stdout fails
// (a full disk, say), the held report lines would claim payloads that did
// not land, so they are replaced by one line saying so.
func (w *sinkWriter) flush() {
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
