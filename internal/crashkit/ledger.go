package crashkit

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// Sent is what a ledger keeps of every message it saw sent: its body's
// digest and length (not the bytes), and the definite failure its send
// ended with, if any.
type Sent struct {
	digest   [32]byte
	size     int
	FailedAs string // set when the send's failure proves it was never admitted
}

// SentBody is the record of a message about to be sent with body.
func SentBody(body []byte) Sent {
	return Sent{digest: sha256.Sum256(body), size: len(body)}
}

// CheckDelivery looks a delivery of topic with body up in msgs, a
// ledger's messages (record returns the Sent each holds), and returns
// the message, nil when nobody sent it, and what the delivery does wrong,
// "" when nothing: a topic nobody sent, a message whose send definitely
// failed, a body other than the one sent.
func CheckDelivery[M any](msgs map[string]*M, record func(*M) *Sent, topic string, body []byte) (*M, string) {
	m, ok := msgs[topic]
	if !ok {
		return nil, fmt.Sprintf("delivered a message nobody sent: topic %q, %d bytes", topic, len(body))
	}
	sent := record(m)
	switch {
	case sent.FailedAs != "":
		return m, fmt.Sprintf("message %s was delivered although its send failed with %s, a definite failure: it was never admitted",
			topic, sent.FailedAs)
	case len(body) != sent.size || sha256.Sum256(body) != sent.digest:
		return m, fmt.Sprintf("message %s delivered corrupt: %d bytes, sha256 %x; sent %d bytes, sha256 %x",
			topic, len(body), sha256.Sum256(body), sent.size, sent.digest)
	}
	return m, ""
}

// NeverAdmitted reports whether a send's failure proves the broker never
// admitted the message: ConnectionLost comes only before the FIN left
// (after it a loss is Indeterminate), and Rejected is a refusal (no
// quorum, a member that does not lead the queue). Canceled is a definite
// failure too (SEMANTICS.md §6.3), but a cancel is not a retraction (§2):
// a request whose FIN was out when the producers were stopped may still
// have been admitted, and runs show such messages delivered, so it does
// not count.
func NeverAdmitted(err error) bool {
	switch weida.KindOf(err) {
	case weida.KindConnectionLost, weida.KindRejected:
		return true
	}
	return false
}

// Audit is a ledger's end-of-run verdict: every violation, then one line
// for the messages msgs holds that isLost says a correct broker cannot
// have lost (certified, and never delivered, or never settled), counted
// and named by topic, the first 20 in order, what saying how they were
// lost ("3 certified message(s) never delivered, among them …").
func Audit[M any](v *Violations, msgs map[string]*M, isLost func(*M) bool, what string) []string {
	problems := v.List()
	var lost []string
	for topic, m := range msgs {
		if isLost(m) {
			lost = append(lost, topic)
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		problems = append(problems, fmt.Sprintf("%d certified message(s) %s, among them %s",
			len(lost), what, strings.Join(lost[:min(len(lost), 20)], ", ")))
	}
	return problems
}

// Tally lists counts as "name n" in name order, comma separated, for a
// run's figures.
func Tally(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for name, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Violations collects what a correct broker never does, from any
// goroutine.
type Violations struct {
	mu   sync.Mutex
	list []string
}

// Add records one violation.
func (v *Violations) Add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.list = append(v.list, fmt.Sprintf(format, args...))
}

// List is every violation recorded until now.
func (v *Violations) List() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.list)
}

// ExpectFirstProblem fails t unless an audit's problems are none, when
// want is "", or start with one containing want: how the suites check
// that their verdict can fail.
func ExpectFirstProblem(t testing.TB, problems []string, want string) {
	t.Helper()
	switch {
	case want == "" && len(problems) > 0:
		t.Fatalf("audit found %q, want nothing", problems)
	case want != "" && (len(problems) == 0 || !strings.Contains(problems[0], want)):
		t.Fatalf("audit found %q, want a first problem containing %q", problems, want)
	}
}
