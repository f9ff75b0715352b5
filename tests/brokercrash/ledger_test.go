package brokercrash

import (
	"errors"
	"fmt"
	"sync"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// sentMessage is what the ledger knows of one message: the body's digest
// and length (the body itself is not kept), whether the broker certified
// it Stored, how often a consumer received it intact and how often one
// settled it. Only a settlement ends the broker's duty: a message a
// consumer held or gave back must still come back after any crash, so
// "delivered at least once" is checked as settled at least once.
type sentMessage struct {
	crashkit.Sent
	certified bool
	delivered int
	settled   int
}

// ledger is the test's record of every message: sent (registered before
// its first byte leaves), certified, delivered, settled. Producers and consumers
// write it from their goroutines; the checks read it at the end.
type ledger struct {
	mu         sync.Mutex
	msgs       map[string]*sentMessage
	certified  int
	outcomes   map[string]int      // how each send ended: "certified" or an error kind
	deliveries int                 // every delivery received, repeats included
	repeats    int                 // deliveries labelled delivery_attempt >= 2
	cutShort   int                 // receives that failed (a kill cut the delivery)
	violations crashkit.Violations // what a correct broker never does
	progress   chan struct{}       // signalled on each certificate; capacity 1
}

func newLedger() *ledger {
	return &ledger{msgs: make(map[string]*sentMessage), outcomes: make(map[string]int), progress: make(chan struct{}, 1)}
}

// sent registers a message before it is sent; a topic is never reused.
func (l *ledger) sent(topic string, body []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[topic] = &sentMessage{Sent: crashkit.SentBody(body)}
}

func (m *sentMessage) record() *crashkit.Sent { return &m.Sent }

// certify records the broker's Stored certificate for topic.
func (l *ledger) certify(topic string) {
	l.mu.Lock()
	m := l.msgs[topic]
	if !m.certified {
		m.certified = true
		l.certified++
	}
	l.outcomes["certified"]++
	l.mu.Unlock()
	select {
	case l.progress <- struct{}{}:
	default: // a signal is already pending; the waiter re-reads the count
	}
}

// failed records a send of topic that ended without a certificate: it
// may or may not be in the queue (the kill may have come at any byte),
// unless the failure is definite.
func (l *ledger) failed(topic string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	outcome := weida.KindOf(err).String()
	if errors.Is(err, errReportEnded) {
		outcome = "report ended without Stored"
	}
	l.outcomes[outcome]++
	if crashkit.NeverAdmitted(err) {
		l.msgs[topic].FailedAs = outcome
	}
}

// receiveFailed counts a delivery the consumer could not receive whole.
func (l *ledger) receiveFailed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cutShort++
}

// certifiedCount is the number of distinct messages certified so far.
func (l *ledger) certifiedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.certified
}

// received checks a delivery a consumer took: its label, then its topic
// and body (delivered). The broker labels a repeat with its attempt
// number from the second attempt on (BROKER.md §9), so a label below 2 is
// wrong.
func (l *ledger) received(body []byte, meta weida.IncomingMeta) (topic string, intact bool) {
	topic, _ = meta.Topic()
	attempt, labelled := meta.DeliveryAttempt()
	if labelled && attempt < 2 {
		l.violations.Add("the delivery of %s is labelled attempt %d; a label starts at 2", topic, attempt)
	}
	return topic, l.delivered(topic, body, attempt)
}

// delivered checks one delivery against the ledger: its topic must name a
// message that was sent, and its body must be that message's bytes. It
// reports whether the delivery was intact.
func (l *ledger) delivered(topic string, body []byte, attempt uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deliveries++
	if attempt >= 2 {
		l.repeats++
	}
	m, violation := crashkit.CheckDelivery(l.msgs, (*sentMessage).record, topic, body)
	if violation != "" {
		l.violations.Add("%s", violation)
		return false
	}
	m.delivered++
	return true
}

// settled records that a consumer reported Processed at the full length
// of an intact delivery of topic.
func (l *ledger) settled(topic string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs[topic].settled++
}

// audit is the end-of-run verdict: every violation, and every certified
// message no consumer settled (at most the first few named).
func (l *ledger) audit() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return crashkit.Audit(&l.violations, l.msgs, func(m *sentMessage) bool { return m.certified && m.settled == 0 },
		"never delivered and settled")
}

// figures summarises the run for the log.
func (l *ledger) figures() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	distinct := 0
	for _, m := range l.msgs {
		if m.settled > 0 {
			distinct++
		}
	}
	return fmt.Sprintf("%d sent, %d certified Stored, %d distinct settled (%d deliveries, %d labelled as repeats, %d cut short); send outcomes: %s",
		len(l.msgs), l.certified, distinct, l.deliveries, l.repeats, l.cutShort, crashkit.Tally(l.outcomes))
}
