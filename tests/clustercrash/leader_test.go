package clustercrash

import (
	"regexp"
	"strconv"
	"sync"
	"time"
)

// leaderLine is what every member logs when it sees the queue's leader
// change (docs/CLUSTER.md §1): slog's text form of
// msg="cluster: leader changed" queue=… leader=sha256:… term=N.
var leaderLine = regexp.MustCompile(`msg="cluster: leader changed" .*leader=(sha256:[0-9a-f]{64}) term=(\d+)`)

// noLeader is the key a member logs while it knows of no leader.
const noLeader = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// leadership is one leader as the members told it.
type leadership struct {
	key  string // "" before any member named one
	term uint64
}

// leaderTracker follows the members' leader-change lines. Its view is the
// leader named with the highest term, so a restarted member repeating an
// old view changes nothing.
type leaderTracker struct {
	mu      sync.Mutex
	current leadership
	lines   int           // leader-change lines naming a leader, from every member
	changed chan struct{} // closed and replaced when current changes
}

func newLeaderTracker() *leaderTracker { return &leaderTracker{changed: make(chan struct{})} }

// observe reads one stderr line of any member.
func (lt *leaderTracker) observe(line string) {
	m := leaderLine.FindStringSubmatch(line)
	if m == nil || m[1] == noLeader {
		return
	}
	term, err := strconv.ParseUint(m[2], 10, 64)
	if err != nil {
		return
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.lines++
	if term > lt.current.term || lt.current.key == "" {
		lt.current = leadership{key: m[1], term: term}
		close(lt.changed)
		lt.changed = make(chan struct{})
	}
}

// leader is the current view and a channel closed when it changes.
func (lt *leaderTracker) leader() (leadership, <-chan struct{}) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.current, lt.changed
}

// changeLines is how many leader-change lines naming a leader the members
// wrote in all.
func (lt *leaderTracker) changeLines() int {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.lines
}

// awaitNewer waits up to d for a leader of a term above term (0: any
// leader); ok is false when none came in time.
func (lt *leaderTracker) awaitNewer(term uint64, d time.Duration) (leadership, bool) {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		l, changed := lt.leader()
		if l.key != "" && l.term > term {
			return l, true
		}
		select {
		case <-changed:
		case <-timeout.C:
			return l, false
		}
	}
}
