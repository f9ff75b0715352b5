package main

// sub --credit: consuming a queue from the shell. A queue delivers only
// against credit and holds each delivery until its consumer settles it
// (Processed at the payload's length), so a message is settled only once
// it left sub for good: written, flushed, and — on a pipe — read by the
// process at the other end. What sub did not hand over stays unsettled and
// the queue delivers it again, to this consumer or the next.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	weida "github.com/weida-go/weida/core"
)

// parseCreditOptions reads --credit and --no-settle into opts. --credit
// is a whole number of messages above 0; --no-settle needs it, and with
// --count may not ask for more messages than the credit lets come, since
// nothing settled makes room for more.
func parseCreditOptions(inv *invocation, opts *subOptions) error {
	s, credited := inv.value(optCredit)
	if credited {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			return usageErrorf(inv.verb, "--credit %q is not a whole number of messages above 0", s)
		}
		opts.credit = n
	}
	if !inv.has(optNoSettle) {
		return nil
	}
	switch {
	case !credited:
		return usageErrorf(inv.verb, "--no-settle holds a queue's messages: it needs --credit N")
	case opts.counted && opts.count > opts.credit:
		return usageErrorf(inv.verb, "--no-settle settles nothing, so at most --credit %d messages come; "+
			"--count %d would wait for ever", opts.credit, opts.count)
	}
	opts.hold = true
	return nil
}

// errNotAQueue is the refusal of a message that orders no settlement.
var errNotAQueue = errors.New("the peer is not a queue: its message orders no settlement " +
	"(a publisher ignores credit); subscribe without --credit")

// queueConsumer is one sub --credit run: the window of credit it keeps
// open and what it settled.
type queueConsumer struct {
	sub  *weida.Subscriber
	opts subOptions
	out  *bufio.Writer
	con  console
	// handedOver waits until stdout's reader took everything written so
	// far; nil when a flushed write is already handed over (a file, a
	// terminal).
	handedOver func(context.Context) error
	taken      uint64 // messages settled, or held under --no-settle
}

// consume grants the credit and settles each delivery once stdout's
// reader has it, replenishing the credit so at most --credit messages are
// unsettled at a time. It ends after --count messages; an interrupt, or a
// reader of stdout that went away, ends it with the message in hand
// unsettled.
func consume(ctx context.Context, sub *weida.Subscriber, opts subOptions, out *bufio.Writer, con console) error {
	c := &queueConsumer{sub: sub, opts: opts, out: out, con: con}
	if f, ok := con.out.(*os.File); ok {
		wait, err := pipeHandover(f)
		if err != nil {
			return err
		}
		c.handedOver = wait
	}
	if err := c.grant(ctx); err != nil {
		return err
	}
	fmt.Fprintf(con.err, "subscribed filter=%q credit=%d\n", opts.filter, c.limit())
	for !opts.counted || c.taken < opts.count {
		t, err := sub.RecvStream(ctx)
		if err != nil {
			return subEnded(ctx, err, c.taken, opts)
		}
		if err := c.take(ctx, t); err != nil {
			if ctx.Err() != nil {
				return subEnded(ctx, err, c.taken, opts)
			}
			return err
		}
	}
	return nil
}

// limit is the credit to stand: what was settled plus the window, never
// beyond --count, so no message comes that sub would not hand over.
// Nothing held makes room, so under --no-settle it is the window.
func (c *queueConsumer) limit() uint64 {
	limit := c.opts.credit
	if !c.opts.hold {
		limit = saturatingAdd(c.taken, limit)
	}
	if c.opts.counted {
		limit = min(limit, c.opts.count)
	}
	return limit
}

// grant sends the standing credit; the library ignores a grant not above
// the last.
func (c *queueConsumer) grant(ctx context.Context) error {
	if err := c.sub.Grant(ctx, c.limit()); err != nil {
		return fmt.Errorf("cannot grant credit: %w", err)
	}
	return nil
}

// take hands one delivery over and settles it (or holds it). A failure
// gives the delivery back to the queue, as unsettled as it came, and ends
// sub: the framing on stdout may be broken from there on.
func (c *queueConsumer) take(ctx context.Context, t *weida.IncomingTransfer) error {
	defer t.Close() // after EOF a no-op; before it, stops the queue's copy
	stopWatching := context.AfterFunc(ctx, func() { _ = t.Close() })
	defer stopWatching()
	meta := t.Meta()
	topic, _ := meta.Topic()
	attempt, _ := meta.DeliveryAttempt()
	report := t.Reporter()
	if report == nil || !slices.Contains(report.Levels(), weida.Processed) {
		return errNotAQueue
	}
	n, err := writeFramed(c.out, t, c.opts.framing)
	if err == nil {
		err = c.out.Flush()
	}
	if err == nil && c.handedOver != nil {
		err = c.handedOver(ctx)
	}
	if err != nil {
		giveBack(report)
		if ctx.Err() != nil {
			return err // an interrupt: sub's end, not the message's failure
		}
		fmt.Fprintf(c.con.err, "weida: the message on topic=%s (attempt %d) goes back to the queue "+
			"unsettled after writing %d bytes: %v\n", topic, attempt, n, err)
		return &reportedError{err}
	}
	if c.opts.hold {
		// Finished with nothing reported, the report opens no stream: the
		// queue holds the message until this connection ends.
		_ = report.Finish()
		c.taken++
		fmt.Fprintf(c.con.err, "topic=%s bytes=%d attempt=%d held\n", topic, n, attempt)
		return nil
	}
	if err := settle(ctx, report, n); err != nil {
		if ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(c.con.err, "weida: the message on topic=%s (attempt %d) goes back to the queue: "+
			"its settlement was not written: %v\n", topic, attempt, err)
		return nil
	}
	c.taken++
	fmt.Fprintf(c.con.err, "topic=%s bytes=%d attempt=%d settled\n", topic, n, attempt)
	return c.grant(ctx)
}

// settle reports the delivery Processed at its length n and waits until
// the report is written; it fails when it was abandoned instead (its
// connection went, or the queue stopped listening).
func settle(ctx context.Context, report *weida.Reporter, n int64) error {
	if err := report.Report(weida.Processed, uint64(n)); err != nil {
		return err
	}
	if err := report.Finish(); err != nil {
		return err
	}
	select {
	case <-report.Done():
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	if report.Abandoned() {
		return errors.New("the report stream could not be written")
	}
	return nil
}

// giveBack ends a delivery's report below its length, which the queue
// reads as "not processed" and delivers the message again at once rather
// than when this connection ends.
func giveBack(report *weida.Reporter) {
	_ = report.Report(weida.Processed, 0)
	_ = report.Finish()
}

// saturatingAdd is a+b, or the largest uint64 when that overflows.
func saturatingAdd(a, b uint64) uint64 {
	if a+b < a {
		return 1<<64 - 1
	}
	return a + b
}
