package main

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingWriter keeps each write it receives and signals it on wrote.
type recordingWriter struct {
	mu     sync.Mutex
	writes []string
	wrote  chan struct{}
	fail   error
}

func newRecordingWriter() *recordingWriter { return &recordingWriter{wrote: make(chan struct{}, 1)} }

func (r *recordingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return 0, r.fail
	}
	r.writes = append(r.writes, string(p))
	select {
	case r.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (r *recordingWriter) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

func TestHeldConsoleJoinsABurst(t *testing.T) {
	out, errw := newRecordingWriter(), newRecordingWriter()
	w := newHeldConsole(console{out: out, err: errw}, time.Hour) // only the flush below writes
	for _, payload := range []string{"one", "two", "three"} {
		if _, err := w.stdoutHeld().Write([]byte(payload)); err != nil {
			t.Fatal(err)
		}
		w.report("received bytes=%d\n", len(payload))
	}
	if len(out.got())+len(errw.got()) != 0 {
		t.Fatalf("wrote before the flush: stdout %q, stderr %q", out.got(), errw.got())
	}
	w.flush()
	if got := out.got(); len(got) != 1 || got[0] != "onetwothree" {
		t.Errorf("stdout writes %q, want the three payloads in one write", got)
	}
	if got := errw.got(); len(got) != 1 || got[0] != "received bytes=3\nreceived bytes=3\nreceived bytes=5\n" {
		t.Errorf("stderr writes %q, want the three reports in one write", got)
	}
}

func TestHeldConsoleWritesHeldBytesWithinTheHold(t *testing.T) {
	out, errw := newRecordingWriter(), newRecordingWriter()
	w := newHeldConsole(console{out: out, err: errw}, time.Millisecond)
	if _, err := w.stdoutHeld().Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.wrote:
	case <-time.After(commandTimeout):
		t.Fatal("a held payload never reached stdout without a flush")
	}
	if got := strings.Join(out.got(), ""); got != "late" {
		t.Errorf("stdout %q, want %q", got, "late")
	}
}

func TestHeldConsoleDoesNotReportPayloadsStdoutLost(t *testing.T) {
	out, errw := newRecordingWriter(), newRecordingWriter()
	out.fail = errors.New("no space left on device")
	w := newHeldConsole(console{out: out, err: errw}, time.Hour)
	if _, err := w.stdoutHeld().Write([]byte("lost")); err != nil {
		t.Fatal(err) // held: the failure shows at the flush
	}
	w.report("received bytes=4\n")
	w.flush()
	got := strings.Join(errw.got(), "")
	if strings.Contains(got, "received bytes") || !strings.Contains(got, "writing to stdout failed: no space left on device") {
		t.Errorf("stderr %q: want the stdout failure instead of the report", got)
	}
}
