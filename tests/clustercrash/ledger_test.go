package clustercrash

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// sentMessage is what the ledger knows of one message: its body's digest
// and length (the body itself is not kept), whether the cluster certified
// it, the definite failure its send ended with, and the deliveries seen.
type sentMessage struct {
	crashkit.Sent
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
	violations  crashkit.Violations // what a correct cluster never does
	progress    chan struct{}       // signalled on each certificate and delivery; capacity 1
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
	l.msgs[topic] = &sentMessage{Sent: crashkit.SentBody(body)}
}

func (m *sentMessage) record() *crashkit.Sent { return &m.Sent }

// certify records a confirm at level from the leader of term; first says
// it is that term's first.
func (l *ledger) certify(topic string, level, term uint64) (first bool) {
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
		first = true
	}
	l.mu.Unlock()
	l.signal()
	return first
}

// failed records a send that ended without a certificate. It may or may
// not be in the queue, unless the failure is definite (neverAdmitted).
func (l *ledger) failed(topic string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	outcome := weida.KindOf(err).String()
	l.outcomes[outcome]++
	if crashkit.NeverAdmitted(err) {
		l.msgs[topic].FailedAs = outcome
	}
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
	m, violation := crashkit.CheckDelivery(l.msgs, (*sentMessage).record, topic, body)
	if violation != "" {
		l.violations.Add("%s", violation)
		return
	}
	switch {
	case attempt < m.maxAttempt:
		l.violations.Add("message %s delivered as attempt %d after attempt %d: delivery_attempt went backwards", topic, attempt, m.maxAttempt)
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
	return crashkit.Audit(&l.violations, l.msgs, func(m *sentMessage) bool { return m.certified && m.delivered == 0 },
		"never delivered")
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
	var levels []string
	for level, n := range l.levels {
		levels = append(levels, fmt.Sprintf("level %d: %d", level, n))
	}
	sort.Strings(levels)
	return fmt.Sprintf("%d sent, %d certified (%s), %d distinct delivered (%d deliveries, %d labelled repeats, "+
		"%d with the attempt of the one before, %d cut short); failed sends: %s",
		len(l.msgs), l.certified, strings.Join(levels, ", "), distinct, l.deliveries, l.repeats, same, l.cutShort,
		crashkit.Tally(l.outcomes))
}
