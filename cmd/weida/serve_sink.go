package main

import (
	"context"
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
// some wait, small ones are written to stdout together (heldConsole).
const sinkBacklog = 256

// sinkLoop writes transfers to stdout one at a time: payloads follow each
// other with no separator, so two at once would interleave beyond repair.
// The writing happens on a worker because a read waiting on the network
// takes no context: the loop stays free to see a signal, stop taking
// transfers, and give the one being written until finishBy() to end.
func sinkLoop(ctx context.Context, puller *weida.Puller, con console, finishBy func() time.Time) error {
	work := inHand{noun: "transfer"}
	transfers := make(chan *weida.IncomingTransfer, sinkBacklog)
	held := newHeldConsole(con, consoleHold)
	go func() {
		for t := range transfers {
			sinkTransfer(t, held)
			if len(transfers) == 0 {
				held.flush() // nothing waits: whatever was held back goes out now
			}
			work.end()
		}
	}()
	defer func() {
		close(transfers)
		work.finish(finishBy, con.err)
		held.flush() // what the last transfers left held, even past the deadline
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

// sinkSmall is the largest declared payload the sink writes through its
// heldConsole; a larger or undeclared one streams to stdout as it arrives.
const sinkSmall = 16 << 10

// sinkTransfer copies one payload to stdout and reports it on stderr. A
// small declared payload goes through con's buffer; a larger or undeclared
// one streams to stdout as it arrives, after whatever con still holds. A
// transfer that fails part-way has already put some bytes on stdout; the
// report says how many, so a reader can tell where the damage is.
func sinkTransfer(t *weida.IncomingTransfer, con *heldConsole) {
	dst := con.stdoutHeld()
	if n, ok := t.Meta().ContentLen(); !ok || n > sinkSmall {
		con.flush() // what came before goes first
		dst = con.stdout
	}
	n, err := copyInPieces(dst, t, nil)
	_ = t.Close() // after EOF a no-op; before it, stops the sender
	if err != nil {
		con.report("weida: transfer failed after %d bytes: %v\n", n, err)
		return
	}
	con.report("received bytes=%d\n", n)
}
