package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"

	weida "github.com/weida-go/weida/core"
)

// sub's options.
var (
	optFilter = option{name: "--filter", value: "F",
		help: "subscribe to the topics F matches (e.g. px.# or px.*.eur); the default, empty, takes every topic"}
	optCount = option{name: "--count", value: "N",
		help: "exit after N messages; without it sub runs until interrupted"}
	optFraming = option{name: "--framing", value: "FORM",
		help: "how payloads are separated on stdout: line (default), raw, nul, or length " +
			"(an 8-byte big-endian length first; the payload is held in memory to learn it)"}
)

// subVerb subscribes to a publisher and writes the payloads to stdout.
var subVerb = &verb{
	name:     "sub",
	synopsis: "[--ca PATH] [--trust FILE] [--identity PATH] [--timeout DURATION] [--filter F] [--count N] [--framing line|raw|nul|length] URL",
	summary:  "subscribe to a publisher and write each message's payload to stdout",
	options:  []option{optCA, optTrust, optIdentity, optTimeout, optFilter, optCount, optFraming},
	check:    checkSubOptions,
	run:      runSub,
}

// subOptions are sub's options, read.
type subOptions struct {
	filter  string
	count   uint64
	counted bool // --count was given; otherwise sub runs until interrupted
	framing framing
}

// checkSubOptions refuses a bad --count or --framing before anything runs.
func checkSubOptions(inv *invocation) error {
	_, err := parseSubOptions(inv)
	return err
}

// parseSubOptions reads --filter, --count and --framing; a bad --count or
// --framing is a usage error. The filter's grammar is the library's to
// judge, when sub subscribes.
func parseSubOptions(inv *invocation) (subOptions, error) {
	opts := subOptions{framing: frameLine}
	opts.filter, _ = inv.value(optFilter)
	if s, ok := inv.value(optCount); ok {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return opts, usageErrorf(inv.verb, "--count %q is not a whole number of messages", s)
		}
		opts.count, opts.counted = n, true
	}
	if s, ok := inv.value(optFraming); ok {
		f, err := parseFraming(s)
		if err != nil {
			return opts, usageErrorf(inv.verb, "%v", err)
		}
		opts.framing = f
	}
	return opts, nil
}

// runSub connects, subscribes, and writes each message in the chosen
// framing, with one "topic=T bytes=N" line per message on stderr. It ends
// after --count messages; otherwise an interrupt is its ordinary end.
func runSub(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	opts, err := parseSubOptions(inv)
	if err != nil {
		return err
	}
	trust, clientOpts, err := dialSetup(inv)
	if err != nil {
		return err
	}
	sub := rt.Subscriber(trust, clientOpts...)
	// Subscribing first checks the filter before any network is touched;
	// Connect then sends it as the connection goes live.
	if err := sub.Subscribe(ctx, opts.filter); err != nil {
		return err
	}
	// Read before Connect, so no transition of the connection is missed.
	events := sub.Events()
	if err := sub.Connect(ctx, inv.url); err != nil {
		return err
	}
	fmt.Fprintf(con.err, "subscribed filter=%q\n", opts.filter)

	ctx, endSub := context.WithCancelCause(ctx)
	defer endSub(nil)
	go watchPublisher(ctx, events, con, endSub)

	out := bufio.NewWriterSize(con.out, pieceSize)
	for seen := uint64(0); !opts.counted || seen < opts.count; seen++ {
		t, err := sub.RecvStream(ctx)
		if err != nil {
			return subEnded(ctx, err, seen, opts)
		}
		if err := receiveMessage(ctx, out, t, opts.framing, con); err != nil {
			return &reportedError{err}
		}
	}
	return nil
}

// receiveMessage writes one message to stdout and reports it on stderr.
// A message that fails part-way has put some bytes on stdout already, and
// the framing is broken from there on: the failure ends sub, and the
// report says how many bytes came.
func receiveMessage(ctx context.Context, out *bufio.Writer, t *weida.IncomingTransfer, f framing, con console) error {
	defer t.Close() // after EOF a no-op; before it, stops the publisher's copy
	// A read waiting on the network takes no context; refusing the copy is
	// what frees it when sub is interrupted.
	stopWatching := context.AfterFunc(ctx, func() { _ = t.Close() })
	defer stopWatching()
	topic, _ := t.Meta().Topic()
	n, err := writeFramed(out, t, f)
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		fmt.Fprintf(con.err, "weida: the message on topic=%s failed after writing %d bytes: %v\n", topic, n, err)
		return err
	}
	// A gap is reported only on connections that agreed on PerProducer
	// ordering; under the default (core) guarantees a drop stays silent.
	if missed, ok := t.Meta().Missed(); ok {
		fmt.Fprintf(con.err, "topic=%s bytes=%d missed=%d\n", topic, n, missed)
		return nil
	}
	fmt.Fprintf(con.err, "topic=%s bytes=%d\n", topic, n)
	return nil
}

// subEnded turns the end of the receive loop into sub's outcome. An
// interrupt is sub's ordinary end unless --count was promised and not
// reached; a publisher given up ends it with the reason.
func subEnded(ctx context.Context, err error, seen uint64, opts subOptions) error {
	if ctx.Err() == nil {
		return err
	}
	var lost *weida.Error
	if cause := context.Cause(ctx); errors.As(cause, &lost) {
		return lost
	}
	if opts.counted {
		return fmt.Errorf("interrupted after %d of %d messages", seen, opts.count)
	}
	return nil
}

// watchPublisher reports the publisher's connection on stderr while the
// library redials it, and ends sub (exit 7) once the library gave it up —
// after that nothing can ever arrive.
func watchPublisher(ctx context.Context, events *weida.PeerEvents, con console, endSub context.CancelCauseFunc) {
	defer events.Close()
	lost := false
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return
		}
		switch ev.Kind {
		case weida.EventLost:
			lost = true
			fmt.Fprintf(con.err, "weida: lost the publisher (%v); redialling\n", ev.Cause)
		case weida.EventConnected:
			if lost {
				lost = false
				fmt.Fprintln(con.err, "weida: reconnected to the publisher and subscribed again; "+
					"what it published meanwhile is missed")
			}
		case weida.EventGaveUp:
			msg := fmt.Sprintf("gave up on the publisher at %s (%v)", ev.URL, ev.Cause)
			if ev.PeerChanged {
				msg = fmt.Sprintf("gave up on the publisher at %s: it now answers with a different key", ev.URL)
			}
			endSub(&weida.Error{Kind: weida.KindConnectionLost, Cause: ev.Cause, Msg: msg})
			return
		}
	}
}
