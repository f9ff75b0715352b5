package clustercrash

import (
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// TestTheLedgerAuditFindsEveryKindOfLoss feeds the verdict what a broken
// cluster would produce: the harness's own checks must be able to fail.
func TestTheLedgerAuditFindsEveryKindOfLoss(t *testing.T) {
	const sent = "the body as sent"
	type delivery struct {
		topic, body string
		attempt     uint64
	}
	tests := []struct {
		name       string
		certified  bool
		failed     error
		deliveries []delivery
		want       string // a fragment of the first problem; "" for none
	}{
		{name: "certified and delivered", certified: true, deliveries: []delivery{{"m", sent, 1}}},
		{name: "certified, redelivered as attempt 2", certified: true, deliveries: []delivery{{"m", sent, 1}, {"m", sent, 2}}},
		{name: "an attempt counted twice over", certified: true, deliveries: []delivery{{"m", sent, 1}, {"m", sent, 3}}},
		{name: "uncertified and never delivered"},
		{name: "uncertified, delivered", deliveries: []delivery{{"m", sent, 1}}},
		{name: "an indeterminate send, delivered", failed: &weida.Error{Kind: weida.KindIndeterminate},
			deliveries: []delivery{{"m", sent, 1}}},
		{name: "certified and never delivered", certified: true,
			want: "1 certified message(s) never delivered, among them m"},
		{name: "delivered corrupt", certified: true, deliveries: []delivery{{"m", "the body as SENT", 1}},
			want: "message m delivered corrupt"},
		{name: "attempt going backwards", certified: true, deliveries: []delivery{{"m", sent, 3}, {"m", sent, 2}},
			want: "message m delivered as attempt 2 after attempt 3: delivery_attempt went backwards"},
		{name: "a refused send, delivered", failed: &weida.Error{Kind: weida.KindRejected},
			deliveries: []delivery{{"m", sent, 1}}, want: "message m was delivered although its send failed with Rejected"},
		{name: "a message nobody sent", deliveries: []delivery{{"ghost", "boo", 1}},
			want: `delivered a message nobody sent: topic "ghost"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger()
			l.sent("m", []byte(sent))
			if tc.certified {
				l.certify("m", weida.Replicated, 1)
			}
			if tc.failed != nil {
				l.failed("m", tc.failed)
			}
			for _, d := range tc.deliveries {
				l.delivered(d.topic, []byte(d.body), d.attempt)
			}
			crashkit.ExpectFirstProblem(t, l.audit(), tc.want)
		})
	}
}

// TestFailoverFiguresComeFromTheNextTerm checks the failover measure: a
// confirm from the killed leader's own term is not the failover's end.
func TestFailoverFiguresComeFromTheNextTerm(t *testing.T) {
	l := newLedger()
	for i, topic := range []string{"a", "b"} {
		l.sent(topic, []byte(topic))
		l.certify(topic, weida.Replicated, uint64(4+i))
	}
	if _, ok := l.firstCertAfter(5); ok {
		t.Fatal("a certificate of term 5 counted as one after term 5")
	}
	first, _ := l.firstCertAfter(3)
	if at, ok := l.firstCertAfter(4); !ok || at.Before(first) {
		t.Fatalf("after term 4: %v (found %v), want term 5's certificate, not before term 4's at %v", at, ok, first)
	}
	if got := percentile([]time.Duration{5, 1, 4, 2, 3}, 50); got != 3 {
		t.Fatalf("p50 of 1..5 is %v, want 3", got)
	}
	if got := percentile([]time.Duration{5, 1, 4, 2, 3}, 99); got != 5 {
		t.Fatalf("p99 of 1..5 is %v, want 5", got)
	}
}
