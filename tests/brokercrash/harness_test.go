package brokercrash

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// The harness's own checks must be able to fail: these tests feed them
// what a broken broker would produce.

// TestTheStartCheckCatchesACorruptStore flips a byte in the first of two
// journal records (a bad record with a valid one after it is corruption,
// not a torn tail) and requires the next start to be reported as failed,
// naming the corrupt store.
func TestTheStartCheckCatchesACorruptStore(t *testing.T) {
	site := newBrokerSite(t, "flushed")
	child := site.start(t)
	site.awaitAddress(t, child)
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown()
	for _, topic := range []string{"first", "second"} {
		publishStored(context.Background(), t, rt, site.address, topic, []byte("a body of "+topic))
	}
	child.Kill(t)

	segments, err := filepath.Glob(filepath.Join(site.dir, "queue", "*", "*.seg"))
	if err != nil || len(segments) != 1 {
		t.Fatalf("want one journal segment, found %v (%v)", segments, err)
	}
	corruptByte(t, segments[0], 20) // inside the first record's body
	// The broker starts with the corrupt queue unserved (its other queues
	// would serve) and says why on stderr, which the crash test fails on.
	again := site.start(t)
	if err := site.readAddress(again); err != nil {
		t.Fatal(err)
	}
	if !again.Stderr.Await("corrupt store", startTimeout) {
		t.Fatalf("the start on a corrupt store said nothing of it; stderr:\n%s", again.Stderr.Text())
	}
	if len(again.unexpectedStderr()) == 0 {
		t.Fatal("the corrupt store's line counts as a clean start's")
	}
	again.Kill(t)
}

func corruptByte(t *testing.T, path string, offset int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if offset >= len(b) {
		t.Fatalf("%s has %d bytes, cannot corrupt offset %d", path, len(b), offset)
	}
	b[offset] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTheLedgerAuditFindsEveryKindOfLoss runs the end-of-run verdict over
// the outcomes a broken broker would cause.
func TestTheLedgerAuditFindsEveryKindOfLoss(t *testing.T) {
	const sent = "the body as sent"
	type delivery struct {
		topic, body string
		settled     bool // the consumer reported Processed at its length
	}
	tests := []struct {
		name       string
		certified  bool
		failed     error // the send's failure, if it failed
		deliveries []delivery
		want       string // a fragment of the first problem; "" for none
	}{
		{name: "certified, delivered and settled", certified: true, deliveries: []delivery{{"m", sent, true}}},
		{name: "certified, given back, then settled", certified: true, deliveries: []delivery{{"m", sent, false}, {"m", sent, true}}},
		{name: "uncertified and never delivered"},
		{name: "uncertified, delivered twice", deliveries: []delivery{{"m", sent, true}, {"m", sent, true}}},
		{name: "certified and never delivered", certified: true,
			want: "1 certified message(s) never delivered and settled, among them m"},
		{name: "certified, delivered, never settled", certified: true, deliveries: []delivery{{"m", sent, false}},
			want: "1 certified message(s) never delivered and settled"},
		{name: "certified, delivered corrupt", certified: true, deliveries: []delivery{{"m", "the body as SENT", true}},
			want: "message m delivered corrupt"},
		{name: "certified, delivered truncated", certified: true, deliveries: []delivery{{"m", "the body", true}},
			want: "message m delivered corrupt: 8 bytes"},
		{name: "an indeterminate send, delivered", failed: &weida.Error{Kind: weida.KindIndeterminate},
			deliveries: []delivery{{"m", sent, true}}},
		{name: "a send the caller canceled, delivered", failed: &weida.Error{Kind: weida.KindCanceled},
			deliveries: []delivery{{"m", sent, true}}},
		{name: "a send lost before its FIN, delivered", failed: &weida.Error{Kind: weida.KindConnectionLost},
			deliveries: []delivery{{"m", sent, true}}, want: "message m was delivered although its send failed with ConnectionLost"},
		{name: "a message nobody sent", deliveries: []delivery{{"ghost", "boo", true}},
			want: `delivered a message nobody sent: topic "ghost"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger()
			l.sent("m", []byte(sent))
			if tc.certified {
				l.certify("m")
			}
			if tc.failed != nil {
				l.failed("m", tc.failed)
			}
			for _, d := range tc.deliveries {
				if l.delivered(d.topic, []byte(d.body), 1) && d.settled {
					l.settled(d.topic)
				}
			}
			crashkit.ExpectFirstProblem(t, l.audit(), tc.want)
		})
	}
}
