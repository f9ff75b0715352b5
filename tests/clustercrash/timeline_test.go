package clustercrash

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// timelineEnv set to 1 prints every kill's timeline, not only a slow one's;
// "all" also prints the whole run's at its end.
const timelineEnv = "WEIDA_CLUSTER_TIMELINE"

// slowFailover is the failover past which a kill's whole timeline is
// printed: the quiet machine's p99 is about 3.5 s, the outliers about 10 s.
const slowFailover = 5 * time.Second

// maxTimelineEvents bounds what one kill's timeline prints.
const maxTimelineEvents = 80

// timelineEvent is one thing the test saw, when it saw it.
type timelineEvent struct {
	at   time.Time
	what string
}

// timeline records what happens around the kills so a slow failover can
// be explained: every line a member writes on stderr (leader changes,
// warnings), each producer move to a new leader and its Connect, the
// first failure of each kind on a leader, each consumer re-subscribe and
// the first confirm of each term.
type timeline struct {
	mu     sync.Mutex
	events []timelineEvent
	names  *strings.Replacer // member keys to "member N"
}

var keyText = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

func newTimeline() *timeline { return &timeline{names: strings.NewReplacer()} }

// nameMembers makes the timeline write "member N" for each member's key.
func (tl *timeline) nameMembers(members []*memberSite) {
	var pairs []string
	for _, m := range members {
		pairs = append(pairs, m.key, fmt.Sprintf("member%d", m.index+1))
	}
	pairs = append(pairs, noLeader, "none")
	tl.mu.Lock()
	tl.names = strings.NewReplacer(pairs...)
	tl.mu.Unlock()
}

// add records one event now.
func (tl *timeline) add(format string, args ...any) {
	now := time.Now()
	what := fmt.Sprintf(format, args...)
	tl.mu.Lock()
	tl.events = append(tl.events, timelineEvent{at: now, what: what})
	tl.mu.Unlock()
}

// memberLine records one stderr line of member index (0-based).
func (tl *timeline) memberLine(index int, line string) {
	tl.add("member%d: %s", index+1, line)
}

// window is every event from from to to, in order.
func (tl *timeline) window(from, to time.Time) []timelineEvent {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []timelineEvent
	for _, e := range tl.events {
		if !e.at.Before(from) && !e.at.After(to) {
			out = append(out, e)
		}
	}
	return out
}

// report is one kill's timeline from killedAt to its failover's end: a
// one-line summary always, every event when the failover was slow or
// WEIDA_CLUSTER_TIMELINE=1.
func (tl *timeline) report(t *testing.T, kill int, killedAt time.Time, failover time.Duration, killedTerm uint64) {
	t.Helper()
	end := killedAt.Add(failover + 50*time.Millisecond) // the first confirm is noted just after its time
	events := tl.window(killedAt, end)
	tl.mu.Lock()
	names := tl.names
	tl.mu.Unlock()
	offset := func(e timelineEvent) string { return fmt.Sprintf("+%.3fs", e.at.Sub(killedAt).Seconds()) }
	var elected, connected string
	for _, e := range events {
		if m := leaderLine.FindStringSubmatch(e.what); elected == "" && m != nil && m[1] != noLeader && m[2] != fmt.Sprint(killedTerm) {
			elected = fmt.Sprintf("%s %s term %s (as %s saw it)", offset(e), names.Replace(m[1]), m[2], strings.SplitN(e.what, ":", 2)[0])
		}
		if strings.HasPrefix(e.what, "producer: connected") {
			connected = offset(e) + " " + e.what
		}
	}
	t.Logf("kill %d timeline: first leader line of a new term %s; last producer connect %s; first confirm +%.3fs",
		kill, orNone(elected), orNone(connected), failover.Seconds())
	if failover < slowFailover && os.Getenv(timelineEnv) == "" {
		return
	}
	var b strings.Builder
	for i, e := range events {
		if i == maxTimelineEvents {
			fmt.Fprintf(&b, "\n  … %d more", len(events)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s %s", offset(e), e.at.UTC().Format("15:04:05.000"), names.Replace(e.what))
	}
	t.Logf("kill %d: every event from the kill (%s) to the first confirm:%s", kill, killedAt.UTC().Format("15:04:05.000"), b.String())
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// dumpAll prints the whole run's timeline when WEIDA_CLUSTER_TIMELINE=all.
func (tl *timeline) dumpAll(t *testing.T) {
	t.Helper()
	if os.Getenv(timelineEnv) != "all" {
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var b strings.Builder
	for _, e := range tl.events {
		fmt.Fprintf(&b, "\n  %s %s", e.at.UTC().Format("15:04:05.000"), tl.names.Replace(e.what))
	}
	t.Logf("the whole timeline:%s", b.String())
}
