package main

import (
	"context"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// claimSink registers the sink at path: every one-way transfer's payload is
// copied to stdout as it arrives.
func claimSink(l *weida.Listener, path string, con console) (func(context.Context) error, error) {
	acc, err := l.Acceptor(path)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return sinkLoop(ctx, acc, con) }, nil
}

// sinkLoop writes transfers to stdout one at a time: payloads follow each
// other with no separator, so two at once would interleave beyond repair.
// The writing happens on a worker because a read waiting on the network
// takes no context: the loop stays free to see a signal and return, and
// the runtime's shutdown then ends the worker's transfer.
func sinkLoop(ctx context.Context, acc *weida.Acceptor, con console) error {
	transfers := make(chan *weida.IncomingTransfer)
	defer close(transfers)
	go func() {
		for t := range transfers {
			sinkTransfer(ctx, t, con)
		}
	}()
	for {
		in, err := acc.Accept(ctx)
		if err != nil {
			return err
		}
		switch in := in.(type) {
		case *weida.IncomingTransfer:
			select {
			case transfers <- in:
			case <-ctx.Done():
				_ = in.Close()
				return ctx.Err()
			}
		case *weida.IncomingExchange:
			// A sink answers nothing: refusing (REJECTED) tells the requester
			// at once instead of leaving it to wait.
			_ = in.Refuse()
		}
	}
}

// sinkTransfer copies one payload to stdout and reports it on stderr. A
// transfer that fails part-way has already put some bytes on stdout; the
// report says how many, so a reader can tell where the damage is.
func sinkTransfer(ctx context.Context, t *weida.IncomingTransfer, con console) {
	n, err := copyInPieces(con.out, t, nil)
	_ = t.Close() // after EOF a no-op; before it, stops the sender
	switch {
	case err == nil:
		fmt.Fprintf(con.err, "received bytes=%d\n", n)
	case ctx.Err() == nil:
		fmt.Fprintf(con.err, "weida: transfer failed after %d bytes: %v\n", n, err)
	}
}
