package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	weida "github.com/weida-go/weida/core"
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
       weida-tour queue [--memory] [--producer PEM] [--consumer PEM] ADDRESS
                                            producer and consumer on a broker's queue
                                            (ADDRESS is a written or flushed queue's,
                                            or a memory queue's with --memory), each
                                            presenting the identity in its PEM file
       weida-tour cluster --pids PID,PID,PID ADDRESS ADDRESS ADDRESS
                                            producer and consumer on a 3-member
                                            cluster's queue (each member's address
                                            and process id), killing the leader
                                            mid-stream
       weida-tour ports N                   print N loopback UDP ports free a moment
                                            ago, for a cluster file`

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
	switch args[0] {
	case "cluster":
		return parseCluster(args[1:])
	case "ports":
		return parsePorts(args[1:])
	}
	if args[0] != "queue" {
		return nil, fmt.Errorf("unknown scene %q", args[0])
	}
	q := queueScene{stored: true}
	var operands []string
	for args = args[1:]; len(args) > 0; args = args[1:] {
		switch args[0] {
		case "--memory":
			q.stored = false
		case "--producer", "--consumer":
			if len(args) < 2 {
				return nil, fmt.Errorf("%s needs a PEM file", args[0])
			}
			id, err := weida.LoadIdentity(args[1])
			if err != nil {
				return nil, err
			}
			if args[0] == "--producer" {
				q.producer = id
			} else {
				q.consumer = id
			}
			args = args[1:]
		default:
			operands = append(operands, args[0])
		}
	}
	if len(operands) != 1 {
		return nil, fmt.Errorf("queue takes one ADDRESS, got %d arguments", len(operands))
	}
	q.url = operands[0]
	return func(ctx context.Context, w io.Writer) error { return runQueue(ctx, w, q) }, nil
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

// runQueue plays the queue scene q.
func runQueue(ctx context.Context, w io.Writer, q queueScene) error {
	fmt.Fprintf(w, "\n== %s\n", queueTitle)
	if err := tourQueue(ctx, story{w}, q); err != nil {
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
