package crashkit

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// LineSink collects a child's output as lines, hands the first one out on
// a channel (the address a test waits for instead of sleeping) and passes
// every line to onLine as it arrives.
type LineSink struct {
	mu      sync.Mutex
	partial []byte
	all     []string
	first   chan string
	added   chan struct{} // closed and replaced at every line
	onLine  func(string)
}

// NewLineSink returns an empty sink; onLine may be nil.
func NewLineSink(onLine func(string)) *LineSink {
	return &LineSink{first: make(chan string, 1), added: make(chan struct{}), onLine: onLine}
}

// First delivers the first complete line, once.
func (s *LineSink) First() <-chan string { return s.first }

// Write splits p into lines; exec's copying goroutine calls it.
func (s *LineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.partial = append(s.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if len(s.all) == 0 {
			s.first <- line
		}
		s.all = append(s.all, line)
		lines = append(lines, line)
		close(s.added)
		s.added = make(chan struct{})
	}
	s.mu.Unlock()
	if s.onLine != nil {
		for _, line := range lines {
			s.onLine(line)
		}
	}
	return len(p), nil
}

// Await waits up to d for a line containing want.
func (s *LineSink) Await(want string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for _, line := range s.all {
			if strings.Contains(line, want) {
				s.mu.Unlock()
				return true
			}
		}
		added := s.added
		s.mu.Unlock()
		select {
		case <-added:
		case <-deadline.C:
			return false
		}
	}
}

// Lines is every complete line so far, and the unterminated tail if any.
func (s *LineSink) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.all...)
	if len(s.partial) > 0 {
		out = append(out, string(s.partial))
	}
	return out
}

// Text is Lines joined, for a failure message.
func (s *LineSink) Text() string { return strings.Join(s.Lines(), "\n") }
