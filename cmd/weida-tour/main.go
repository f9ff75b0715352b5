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

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
	defer cancel()
	if err := runTour(ctx, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "weida-tour: %v\n", err)
		os.Exit(1)
	}
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

// story is where a scene tells what happened.
type story struct{ w io.Writer }

// say tells one line of a scene.
func (s story) say(format string, args ...any) {
	fmt.Fprintf(s.w, "   "+format+"\n", args...)
}
