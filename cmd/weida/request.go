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
	synopsis:  "[--ca PATH] [--trust FILE] [--identity PATH] [--timeout DURATION] URL [FILE|-]",
	summary:   "send FILE (or stdin) as one request and stream the reply to stdout",
	options:   []option{optCA, optTrust, optIdentity, optTimeout},
	takesFile: true,
	run:       runRequest,
}

// runRequest sends the request, and sends it again to the leader a
// cluster member names when it refuses NOT_LEADER: the member read none of
// it, and the whole payload is in hand (docs/CLUSTER.md §5).
func runRequest(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	payload, err := readPayload(inv, con)
	if err != nil {
		return err
	}
	trust, clientOpts, err := dialSetup(inv)
	if err != nil {
		return err
	}
	url := inv.url
	for followed := 0; ; followed++ {
		requester := rt.Requester(trust, clientOpts...)
		n, err := requestAt(ctx, requester, url, payload, con)
		if err == nil {
			fmt.Fprintf(con.err, "reply bytes=%d\n", n)
			return nil
		}
		leader, ok := leaderToFollow(err, trust)
		if !ok || followed == weida.MaxRedirects {
			return err
		}
		_ = requester.Close()
		url = leader
	}
}

// requestAt opens one Req/Rep exchange at url and writes the request while
// it waits for the reply: an echo answers before the request ends, so
// writing first and reading after would stall on flow control beyond the
// stream window. It returns the reply's length.
func requestAt(ctx context.Context, requester *weida.Requester, url string, payload []byte, con console) (int64, error) {
	if err := requester.Connect(ctx, url); err != nil {
		return 0, err
	}
	out, replies, err := requester.Open(ctx, payloadMeta(payload))
	if err != nil {
		return 0, err
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
	return n, err
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
