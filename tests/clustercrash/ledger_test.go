package clustercrash

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	weida "github.com/weida-go/weida/core"
)

// sentMessage is what the ledger knows of one message: its body's digest
// and length (the body itself is not kept), whether the cluster certified
// it, the definite failure its send ended with, and the deliveries seen.
type sentMessage struct {
	digest      [32]byte
	size        int
	failedAs    string
	certified   bool
	delivered   int
	maxAttempt  uint64
	sameAttempt int // deliveries labelled with the attempt of the one before
}

// ledger is the test's record of every message: sent (registered before
// its first byte leaves), certified, delivered. Producers and the
// consumer write it from their goroutines.
type ledger struct {
	mu          sync.Mutex
	msgs        map[string]*sentMessage
	certified   int
	levels      map[uint64]int       // confirms by level
	outcomes    map[string]int       // how each failed send ended
	firstCert   map[uint64]time.Time // the first certificate of each leader's term
	deliveries  int
	repeats     int // deliveries labelled delivery_attempt >= 2
	undelivered int // certified messages not yet delivered
	cutShort    int
	violations  []string
	progress    chan struct{} // signalled on each certificate and delivery; capacity 1
}

func newLedger() *ledger {
	return &ledger{msgs: map[string]*sentMessage{}, levels: map[uint64]int{}, outcomes: map[string]int{},
		firstCert: map[uint64]time.Time{}, progress: make(chan struct{}, 1)}
}

func (l *ledger) signal() {
	select {
	case l.progress <- struct{}{}:
	default: // a signal is pending; the waiter re-reads
	}
}

// sent registers a message before it is sent; a topic is never reused.
func (l *ledger) sent(topic string, body []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[topic] = &sentMessage{digest: sha256.Sum256(body), size: len(body)}
}

// certify records a confirm at level from the leader of term.
func (l *ledger) certify(topic string, level, term uint64) {
	l.mu.Lock()
	m := l.msgs[topic]
	l.levels[level]++
	if !m.certified {
		m.certified = true
		l.certified++
		if m.delivered == 0 {
			l.undelivered++
		}
	}
	if _, seen := l.firstCert[term]; !seen {
		l.firstCert[term] = time.Now()
	}
	l.mu.Unlock()
	l.signal()
}

// failed records a send that ended without a certificate. It may or may
// not be in the queue, unless the failure is definite (neverAdmitted).
func (l *ledger) failed(topic string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	outcome := weida.KindOf(err).String()
	l.outcomes[outcome]++
	if neverAdmitted(err) {
		l.msgs[topic].failedAs = outcome
	}
}

// neverAdmitted: a send that failed with ConnectionLost never got its FIN
// out (after the FIN a loss is Indeterminate), and one the broker refused
// (Rejected: no quorum; a member that does not lead the queue) was not
// admitted. Canceled is not counted: the producers are stopped by
// cancelling, and a cancel is not a retraction.
func neverAdmitted(err error) bool {
	switch weida.KindOf(err) {
	case weida.KindConnectionLost, weida.KindRejected:
		return true
	}
	return false
}

// violate records something a correct cluster never does.
func (l *ledger) violate(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.violations = append(l.violations, fmt.Sprintf(format, args...))
}

func (l *ledger) receiveFailed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cutShort++
}

// delivered checks one delivery: its topic names a message that was sent
// and not definitely refused, its body is that message's bytes, and its
// attempt (1 when unlabelled) is not below one already seen for it.
func (l *ledger) delivered(topic string, body []byte, attempt uint64) {
	l.mu.Lock()
	defer func() {
		l.mu.Unlock()
		l.signal()
	}()
	l.deliveries++
	if attempt >= 2 {
		l.repeats++
	}
	m, ok := l.msgs[topic]
	switch {
	case !ok:
		l.violations = append(l.violations, fmt.Sprintf("delivered a message nobody sent: topic %q, %d bytes", topic, len(body)))
		return
	case m.failedAs != "":
		l.violations = append(l.violations, fmt.Sprintf("message %s was delivered although its send failed with %s: it was never admitted", topic, m.failedAs))
		return
	case len(body) != m.size || sha256.Sum256(body) != m.digest:
		l.violations = append(l.violations, fmt.Sprintf("message %s delivered corrupt: %d bytes, sent %d", topic, len(body), m.size))
		return
	case attempt < m.maxAttempt:
		l.violations = append(l.violations, fmt.Sprintf("message %s delivered as attempt %d after attempt %d: delivery_attempt went backwards", topic, attempt, m.maxAttempt))
	case attempt == m.maxAttempt:
		m.sameAttempt++
	}
	m.maxAttempt = max(m.maxAttempt, attempt)
	if m.delivered == 0 && m.certified {
		l.undelivered--
	}
	m.delivered++
}

// counts is the certified messages so far and those not yet delivered.
func (l *ledger) counts() (certified, undelivered int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.certified, l.undelivered
}

func (l *ledger) violationsSoFar() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.violations)
}

// firstCertAfter is the earliest first certificate of a term above term.
func (l *ledger) firstCertAfter(term uint64) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first time.Time
	for t, at := range l.firstCert {
		if t > term && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first, !first.IsZero()
}

// audit is the end-of-run verdict: every violation, and every certified
// message never delivered (the first few named).
func (l *ledger) audit() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	problems := slices.Clone(l.violations)
	var lost []string
	for topic, m := range l.msgs {
		if m.certified && m.delivered == 0 {
			lost = append(lost, topic)
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		problems = append(problems, fmt.Sprintf("%d certified message(s) never delivered, among them %s",
			len(lost), strings.Join(lost[:min(len(lost), 20)], ", ")))
	}
	return problems
}

// figures summarises the run for the log.
func (l *ledger) figures() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	distinct, same := 0, 0
	for _, m := range l.msgs {
		if m.delivered > 0 {
			distinct++
		}
		same += m.sameAttempt
	}
	var levels, failures []string
	for level, n := range l.levels {
		levels = append(levels, fmt.Sprintf("level %d: %d", level, n))
	}
	for kind, n := range l.outcomes {
		failures = append(failures, fmt.Sprintf("%s %d", kind, n))
	}
	sort.Strings(levels)
	sort.Strings(failures)
	return fmt.Sprintf("%d sent, %d certified (%s), %d distinct delivered (%d deliveries, %d labelled repeats, "+
		"%d with the attempt of the one before, %d cut short); failed sends: %s",
		len(l.msgs), l.certified, strings.Join(levels, ", "), distinct, l.deliveries, l.repeats, same, l.cutShort,
		strings.Join(failures, ", "))
}
