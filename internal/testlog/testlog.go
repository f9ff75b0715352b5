// Package testlog is a log sink for tests that wait for a line: the test
// synchronises on the line being written, never on a sleep.
package testlog

import (
	"bytes"
	"strings"
	"sync"
)

// Sink collects what a logger writes and closes Seen once it holds want.
// It is safe for concurrent writers and readers.
type Sink struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
}

// New returns a Sink that waits for want.
func New(want string) *Sink { return &Sink{want: want, seen: make(chan struct{})} }

// Write appends p and closes Seen the first time the log holds want.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	had := strings.Contains(s.b.String(), s.want)
	n, err := s.b.Write(p)
	if !had && strings.Contains(s.b.String(), s.want) {
		close(s.seen)
	}
	return n, err
}

// Seen is closed once the log holds want.
func (s *Sink) Seen() <-chan struct{} { return s.seen }

// String is everything written so far.
func (s *Sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
