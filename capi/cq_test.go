package main

import (
	"errors"
	"sync"
	"syscall"
	"testing"
)

// readable reports whether a non-blocking descriptor has bytes to read,
// consuming them (so call it on a signal only to check it).
func readable(t *testing.T, fd int) bool {
	t.Helper()
	var buf [8]byte
	_, err := syscall.Read(fd, buf[:])
	if errors.Is(err, syscall.EAGAIN) {
		return false
	}
	if err != nil {
		t.Fatalf("reading the queue's descriptor: %v", err)
	}
	return true
}

// The descriptor follows post: raised by the first outcome, left alone by
// later ones. (take and its clearing need C's completion array: they are
// tests/capi/cq.c's.)
func TestCQSignalFollowsTheQueue(t *testing.T) {
	s, err := newCQSignal()
	if err != nil {
		t.Fatal(err)
	}
	q := &cqObj{signal: s}
	defer q.release()
	steps := []struct {
		name string
		do   func()
		want bool // q.signalled afterwards
	}{
		{"new", func() {}, false},
		{"first post", func() { q.post(completion{op: 1}) }, true},
		{"second post", func() { q.post(completion{op: 2}) }, true},
	}
	for _, st := range steps {
		st.do()
		if q.signalled != st.want {
			t.Errorf("%s: signalled = %v, want %v", st.name, q.signalled, st.want)
		}
	}
	if len(q.ready) != 2 {
		t.Fatalf("%d outcomes queued, want 2", len(q.ready))
	}
	if !readable(t, q.signal.fd()) {
		t.Error("the descriptor is not readable with outcomes waiting")
	}
	if readable(t, q.signal.fd()) {
		t.Error("two posts raised the descriptor twice: it must be raised once per empty-to-waiting change")
	}
}

// Posting races closing: no write may reach a closed descriptor, and the
// race detector must see no unsynchronised access.
func TestCQPostRacesRelease(t *testing.T) {
	for round := 0; round < 50; round++ {
		s, err := newCQSignal()
		if err != nil {
			t.Fatal(err)
		}
		q := &cqObj{signal: s}
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(op uint64) {
				defer wg.Done()
				q.post(completion{op: op})
			}(uint64(i + 1))
		}
		q.release()
		wg.Wait()
		if !q.closed || q.ready != nil {
			t.Fatalf("round %d: after release closed=%v and %d outcomes kept", round, q.closed, len(q.ready))
		}
		q.post(completion{op: 99}) // after release: dropped, no write
		if q.ready != nil {
			t.Fatalf("round %d: a post after release was queued", round)
		}
	}
}
