package clustercrash

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// lineSink collects a child's output as lines, hands the first one out on
// a channel (the address a test waits for instead of sleeping) and passes
// every line to onLine as it arrives.
type lineSink struct {
	mu      sync.Mutex
	partial []byte
	all     []string
	first   chan string
	added   chan struct{} // closed and replaced at every line
	onLine  func(string)
}

func newLineSink(onLine func(string)) *lineSink {
	return &lineSink{first: make(chan string, 1), added: make(chan struct{}), onLine: onLine}
}

// Write splits p into lines; exec's copying goroutine calls it.
func (s *lineSink) Write(p []byte) (int, error) {
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

// await waits up to d for a line containing want.
func (s *lineSink) await(want string, d time.Duration) bool {
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

// lines is every complete line so far, and the unterminated tail if any.
func (s *lineSink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.all...)
	if len(s.partial) > 0 {
		out = append(out, string(s.partial))
	}
	return out
}

func (s *lineSink) text() string { return strings.Join(s.lines(), "\n") }
