package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strconv"
	"syscall"

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
	optCredit = option{name: "--credit", value: "N",
		help: "consume a queue: take at most N messages unsettled at a time and settle each " +
			"(Processed) once stdout's reader has it; --count then counts settled messages. " +
			"A URL that is not a queue is refused at its first message"}
	optNoSettle = option{name: "--no-settle", help: "with --credit: settle nothing, so what sub " +
		"printed goes back to the queue when it exits (a peek at up to N messages)"}
)

// subVerb subscribes to a publisher and writes the payloads to stdout.
var subVerb = &verb{
	name:     "sub",
	synopsis: "[--ca PATH] [--trust FILE] [--identity PATH] [--timeout DURATION] [--filter F] [--count N] [--framing line|raw|nul|length] [--credit N [--no-settle]] URL",
	summary: "subscribe to a publisher and write each message's payload to stdout; with " +
		"--credit, consume a queue, settling each message stdout's reader took",
	options: []option{optCA, optTrust, optIdentity, optTimeout, optFilter, optCount, optFraming, optCredit, optNoSettle},
	check:   checkSubOptions,
	run:     runSub,
}

// subOptions are sub's options, read.
type subOptions struct {
	filter  string
	count   uint64
	counted bool // --count was given; otherwise sub runs until interrupted
	framing framing
	credit  uint64 // --credit: the most messages unsettled at once; 0 when sub is no consumer
	hold    bool   // --no-settle: every message stays unsettled
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
	return opts, parseCreditOptions(inv, &opts)
}

// runSub connects, subscribes, and writes each message in the chosen
// framing, with one "topic=T bytes=N" line per message on stderr. It ends
// after --count messages; otherwise an interrupt is its ordinary end.
func runSub(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	opts, err := parseSubOptions(inv)
	if err != nil {
		return err
	}
	if opts.credit > 0 {
		// Before anything is dialled: a write to a stdout whose reader
		// left must fail (EPIPE), not kill sub before it gives the
		// message back.
		signal.Ignore(syscall.SIGPIPE)
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
	ctx, endSub := context.WithCancelCause(ctx)
	defer endSub(nil)
	out := bufio.NewWriterSize(con.out, pieceSize)
	if opts.credit > 0 {
		go watchPublisher(ctx, events, con, endSub, "queue")
		return consume(ctx, sub, opts, out, con)
	}
	fmt.Fprintf(con.err, "subscribed filter=%q\n", opts.filter)
	go watchPublisher(ctx, events, con, endSub, "publisher")

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

// reconnectedLine is what stderr says when the connection came back.
var reconnectedLine = map[string]string{
	"publisher": "weida: reconnected to the publisher and subscribed again; what it published meanwhile is missed",
	"queue": "weida: reconnected to the queue and subscribed again; what was delivered and not " +
		"settled before goes back to the queue, and may come again",
}

// watchPublisher reports the connection to the publisher (or queue: peer
// names it) on stderr while the library redials it, and ends sub (exit 7)
// once the library gave it up — after that nothing can ever arrive.
func watchPublisher(ctx context.Context, events *weida.PeerEvents, con console, endSub context.CancelCauseFunc, peer string) {
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
			fmt.Fprintf(con.err, "weida: lost the %s (%v); redialling\n", peer, ev.Cause)
		case weida.EventConnected:
			if lost {
				lost = false
				fmt.Fprintln(con.err, reconnectedLine[peer])
			}
		case weida.EventGaveUp:
			msg := fmt.Sprintf("gave up on the %s at %s (%v)", peer, ev.URL, ev.Cause)
			if ev.PeerChanged {
				msg = fmt.Sprintf("gave up on the %s at %s: it now answers with a different key", peer, ev.URL)
			}
			endSub(&weida.Error{Kind: weida.KindConnectionLost, Cause: ev.Cause, Msg: msg})
			return
		}
	}
}
