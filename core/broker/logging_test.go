package broker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// lineLog is a slog.Handler keeping each record as "LEVEL msg k=v ...".
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (*lineLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *lineLog) WithAttrs([]slog.Attr) slog.Handler     { return l }
func (l *lineLog) WithGroup(string) slog.Handler          { return l }
func (l *lineLog) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	return nil
}

// find returns the first line holding every part, or "".
func (l *lineLog) find(parts ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return line
		}
	}
	return ""
}

// A refused admission is logged at Debug with the queue and why: the
// producer has heard Rejected by then, so the line is already written.
func TestBrokerLogsARefusedAdmission(t *testing.T) {
	log := &lineLog{}
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs"}}, QueueBytes: 4096, Logger: slog.New(log)})
	_, err := newProducer(t, tb.binding.URL("/jobs")).send(t, "", bytes.Repeat([]byte("x"), 8192))
	if !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("an 8 KiB body into a 4 KiB queue: %v, want Rejected", err)
	}
	if line := log.find("DEBUG weida broker: admission refused", "queue=/jobs", "does not fit"); line == "" {
		t.Fatalf("no refusal line; got %q", log.lines)
	}
}

// Whatever OnError hears (a store failure, a quarantine, a queue left
// unserved at start) is logged at Error with the queue's path first, and
// still reaches OnError.
func TestBrokerLogsWhatOnErrorHears(t *testing.T) {
	log := &lineLog{}
	var heard error
	q := &queue{path: "/flushed"}
	onError := q.logErrors(slog.New(log), func(err error) { heard = err })
	bad := errors.New("payload 3f2a is corrupt")
	onError(bad)
	if heard != bad {
		t.Fatalf("OnError heard %v, want %v", heard, bad)
	}
	if line := log.find("ERROR weida broker: queue error", "queue=/flushed", "3f2a is corrupt"); line == "" {
		t.Fatalf("no error line; got %q", log.lines)
	}
}
