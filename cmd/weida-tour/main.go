package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// tourTimeout bounds the whole tour: a hang is a failure, not a wait.
const tourTimeout = 60 * time.Second

// scene is one pattern's part of the tour.
type scene struct {
	title string
	run   func(ctx context.Context, s story) error
}

var scenes = []scene{
	{"PAIR: an exclusive link between two ends, transfers both ways", tourPair},
	{"SURVEY: ask every respondent at once, count the silent ones", tourSurvey},
	{"BUS: each member reaches every other, never itself", tourBus},
}

// queueTitle heads the queue scene, which needs a broker's address.
const queueTitle = "QUEUE: producer → queue → consumer, ACCEPTED and PROCESSED arriving at the producer"

const usage = `usage: weida-tour                         PAIR, SURVEY and BUS on loopback
       weida-tour queue [--memory] ADDRESS  producer and consumer on a broker's queue
                                            (ADDRESS is a written or flushed queue's,
                                            or a memory queue's with --memory)`

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
	defer cancel()
	tour, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "weida-tour: %v\n%s\n", err, usage)
		os.Exit(2)
	}
	if err := tour(ctx, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "weida-tour: %v\n", err)
		os.Exit(1)
	}
}

// parseArgs picks the tour the arguments ask for.
func parseArgs(args []string) (func(context.Context, io.Writer) error, error) {
	if len(args) == 0 {
		return runTour, nil
	}
	if args[0] != "queue" {
		return nil, fmt.Errorf("unknown scene %q", args[0])
	}
	args = args[1:]
	stored := true
	if len(args) > 0 && args[0] == "--memory" {
		stored = false
		args = args[1:]
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("queue takes one ADDRESS, got %d arguments", len(args))
	}
	url := args[0]
	return func(ctx context.Context, w io.Writer) error { return runQueue(ctx, w, url, stored) }, nil
}

// runTour plays every scene, telling it on w, and stops at the first
// outcome that differs from the specified one.
func runTour(ctx context.Context, w io.Writer) error {
	s := story{w}
	for _, sc := range scenes {
		fmt.Fprintf(w, "\n== %s\n", sc.title)
		if err := sc.run(ctx, s); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nweida-tour: PAIR, SURVEY and BUS behaved as specified")
	return nil
}

// runQueue plays the queue scene against the queue at url; stored says
// the broker keeps it written or flushed, so it must certify STORED.
func runQueue(ctx context.Context, w io.Writer, url string, stored bool) error {
	fmt.Fprintf(w, "\n== %s\n", queueTitle)
	if err := tourQueue(ctx, story{w}, url, stored); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nweida-tour: the queue behaved as specified")
	return nil
}

// story is where a scene tells what happened.
type story struct{ w io.Writer }

// say tells one line of a scene.
func (s story) say(format string, args ...any) {
	fmt.Fprintf(s.w, "   "+format+"\n", args...)
}
