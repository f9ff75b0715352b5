package main

import (
	"context"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// sendVerb pushes one transfer and waits for its transport receipt.
var sendVerb = &verb{
	name:      "send",
	synopsis:  "[--ca PATH] [--trust FILE] [--identity PATH] [--timeout DURATION] URL [FILE|-]",
	summary:   "push FILE (or stdin) as one transfer and wait for the transport receipt",
	options:   []option{optCA, optTrust, optIdentity, optTimeout},
	takesFile: true,
	run:       runSend,
}

// runSend connects a pusher, writes the payload as one transfer with its
// length announced, and reports "delivered bytes=N" once the peer's QUIC
// stack acknowledged every byte and the FIN. That receipt says nothing
// about the peer application (the drain after the verb waits for that),
// and a small payload to an unserved path may still be delivered before
// the refusal arrives (SURFACE.md §1.8).
func runSend(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	payload, err := readPayload(inv, con)
	if err != nil {
		return err
	}
	trust, clientOpts, err := dialSetup(inv)
	if err != nil {
		return err
	}
	pusher := rt.Pusher(trust, clientOpts...)
	if err := pusher.Connect(ctx, inv.url); err != nil {
		return err
	}
	meter := newProgress(con, len(payload))
	err = push(ctx, pusher, payload, meter)
	meter.end()
	if err != nil {
		fmt.Fprintf(con.err, "undelivered bytes=%d: %v\n", len(payload), err)
		return &reportedError{err}
	}
	fmt.Fprintf(con.err, "delivered bytes=%d\n", len(payload))
	return nil
}

// push sends payload as one streamed transfer (never through the outbox:
// the receipt is the point) and waits for its receipt.
func push(ctx context.Context, pusher *weida.Pusher, payload []byte, meter *progress) error {
	out, err := pusher.Open(ctx, payloadMeta(payload))
	if err != nil {
		return err
	}
	delivery, err := sendPayload(ctx, out, payload, meter)
	if err != nil {
		return err
	}
	return delivery.Delivered(ctx)
}
