package main

import (
	"context"
	"fmt"
	"io"

	weida "github.com/weida-go/weida/core"
)

// requestVerb sends one request and streams the reply to stdout.
var requestVerb = &verb{
	name:      "request",
	synopsis:  "[--ca PATH] [--identity PATH] [--timeout DURATION] URL [FILE|-]",
	summary:   "send FILE (or stdin) as one request and stream the reply to stdout",
	options:   []option{optCA, optIdentity, optTimeout},
	takesFile: true,
	run:       runRequest,
}

// runRequest opens one Req/Rep exchange and writes the request while it waits for
// the reply: an echo answers before the request ends, so writing first and
// reading after would stall on flow control beyond the stream window.
func runRequest(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	payload, err := readPayload(inv, con)
	if err != nil {
		return err
	}
	trust, clientOpts, err := dialSetup(inv)
	if err != nil {
		return err
	}
	requester := rt.Requester(trust, clientOpts...)
	if err := requester.Connect(ctx, inv.url); err != nil {
		return err
	}
	out, replies, err := requester.Open(ctx, payloadMeta(payload))
	if err != nil {
		return err
	}

	meter := newProgress(con, len(payload))
	writeCtx, stopWriting := context.WithCancel(ctx)
	defer stopWriting()
	written := make(chan error, 1)
	go func() {
		_, err := sendPayload(writeCtx, out, payload, meter)
		written <- err
	}()

	n, err := receiveReply(ctx, replies, con.out, meter)
	// The reply, or the ERROR that replaced it, is the outcome: a request
	// the peer refused or stopped reading is abandoned rather than waited
	// on, and its write error (the same refusal, told less precisely) is
	// dropped.
	stopWriting()
	<-written
	meter.end()
	if err != nil {
		return err
	}
	fmt.Fprintf(con.err, "reply bytes=%d\n", n)
	return nil
}

// receiveReply waits for the reply and streams it to stdout. stdout is
// written only from here, and only once the peer answered, so every failure
// before the answer leaves stdout empty.
func receiveReply(ctx context.Context, replies *weida.ReplyStream, stdout io.Writer, meter *progress) (int64, error) {
	reply, err := replies.Recv(ctx)
	if err != nil {
		return 0, err
	}
	// A read waiting on the network takes no context; abandoning the reply
	// stream is what frees it when the user interrupts.
	stopWatching := context.AfterFunc(ctx, func() { _ = replies.Close() })
	defer stopWatching()
	return copyInPieces(stdout, reply, meter.addReceived)
}
