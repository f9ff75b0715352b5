package cluster

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer the Raft goroutines may write to while
// the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A member given RaftLog hears hashicorp/raft's own lines, named after the
// queue's group; the others, given none, stay silent as before.
func TestRaftLogCarriesHashicorpsLinesPerQueue(t *testing.T) {
	var logged lockedBuffer
	tc := startClusterWith(t, 3, func(i int, cfg *NodeConfig) {
		if i == 0 {
			cfg.RaftLog, cfg.RaftLogLevel = &logged, "info"
		}
	}, "/jobs")
	tc.waitFor(t, "a leader for /jobs", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	text := logged.String()
	if !strings.Contains(text, "raft /jobs") || !strings.Contains(text, "entering follower state") {
		t.Fatalf("member 0's Raft log lacks its group's start:\n%s", text)
	}
}

func TestRaftLogLevelRefusesAnUnknownName(t *testing.T) {
	for _, name := range []string{"", "trace", "debug", "info", "warn", "error"} {
		if _, err := raftLogLevel(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	if _, err := raftLogLevel("loud"); err == nil || !strings.Contains(err.Error(), `"loud"`) {
		t.Fatalf("loud: %v, want a refusal naming it", err)
	}
}
