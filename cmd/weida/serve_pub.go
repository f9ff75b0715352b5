package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
)

// maxPubLine bounds one line of stdin: the largest body Publish takes (the
// default subscriber budget) with room for a topic and its space. A longer
// line is an error, never an allocation.
const maxPubLine = weida.DefaultSubscriberBufferBytes + wire.CapTopic + 1

// claimPub registers a publisher at path that publishes stdin, one message
// per line, until stdin ends. Transfers and exchanges at the path are
// refused Unsupported by the library.
func claimPub(l *weida.Listener, path string, con console) (serveLoop, error) {
	publisher, err := l.Publisher(path)
	if err != nil {
		return nil, err
	}
	// Publish never waits for a subscriber, so there is no work in hand to
	// finish: the copies still queued are the drain's to deliver.
	return func(ctx context.Context, _ func() time.Time) error {
		return publishLines(ctx, publisher, con)
	}, nil
}

// publishLines publishes each line of stdin and reports how many
// subscribers it reached; 0 is normal (SUBSCRIBE has no reply, so a
// subscriber that just connected may not be counted yet). Reading stdin
// cannot be interrupted, so lines come from a reader goroutine and the loop
// stays free to see a signal.
func publishLines(ctx context.Context, publisher *weida.Publisher, con console) error {
	lines := make(chan stdinLine)
	go readLines(ctx, con.in, lines)
	for {
		var line stdinLine
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line = <-lines:
		}
		if line.err != nil {
			return line.err
		}
		if line.eof {
			return nil
		}
		topic, body := splitPubLine(line.text)
		reached, err := publisher.Publish(topic, body)
		if err != nil {
			return fmt.Errorf("cannot publish on topic=%s: %w", topic, err)
		}
		fmt.Fprintf(con.err, "published topic=%s subscribers=%d\n", topic, reached)
	}
}

// splitPubLine reads "TOPIC BODY", split at the first space; a line with
// no space is a body on the empty topic (SURFACE.md §1.2).
func splitPubLine(line []byte) (topic string, body []byte) {
	before, after, found := bytes.Cut(line, []byte(" "))
	if !found {
		return "", line
	}
	return string(before), after
}

// stdinLine is one line of stdin without its "\n", or how stdin ended.
type stdinLine struct {
	text []byte
	eof  bool
	err  error
}

// readLines sends stdin's lines until it ends, then one stdinLine saying
// how. A last line without "\n" is still a line.
func readLines(ctx context.Context, in io.Reader, lines chan<- stdinLine) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 0, pieceSize), maxPubLine+1) // +1: the "\n"
	scanner.Split(splitAtNewline)
	send := func(l stdinLine) bool {
		select {
		case lines <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for scanner.Scan() {
		// The scanner reuses its buffer for the next line.
		if !send(stdinLine{text: bytes.Clone(scanner.Bytes())}) {
			return
		}
	}
	switch err := scanner.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		send(stdinLine{err: fmt.Errorf("a line of stdin is longer than %d bytes, the most one message may carry", maxPubLine)})
	case err != nil:
		send(stdinLine{err: fmt.Errorf("cannot read stdin: %w", err)})
	default:
		send(stdinLine{eof: true})
	}
}

// splitAtNewline is a bufio.SplitFunc that strips exactly the "\n" ending
// a line; unlike bufio.ScanLines it keeps a "\r", which is body.
func splitAtNewline(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
