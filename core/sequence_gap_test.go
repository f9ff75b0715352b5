package weida_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// A send that fails before anything of it went on the wire spends no
// sequence number: the next message follows the last one delivered with
// no gap, so a reassembling puller does not hold it behind a number that
// can never come. (The number was drawn before the stream was opened and
// before the header was checked, so a Send whose context ended while it
// waited for stream credit, or whose header the peer would refuse, left a
// hole that held every later message until 256 waited or the connection
// ended.)

// recvNumbered receives one message and checks that it carries want and
// the sequence number seq, with nothing reported missed.
func recvNumbered(t *testing.T, pull *weida.Puller, seq uint64, want string) {
	t.Helper()
	body, meta, err := pull.Recv(ctxFor(t), 1<<10)
	if err != nil {
		t.Fatalf("receiving %q: %v", want, err)
	}
	got, numbered := meta.Sequence()
	missed, _ := meta.Missed()
	if string(body) != want || !numbered || got != seq || missed != 0 {
		t.Fatalf("received %q numbered %v %d with %d missed; want %q numbered %d with none missed",
			body, numbered, got, missed, want, seq)
	}
}

func TestASendCanceledWaitingForStreamCreditSpendsNoSequenceNumber(t *testing.T) {
	const credit = 4
	srv := pushpullServe(t, weida.Config{Guarantees: seqReassemble, Limits: weida.Limits{MaxConcurrentUniStreams: credit}})
	push := pushpullPusher(t, runtimeWith(t, weida.Config{Guarantees: seqReassemble}), nil, srv.url)
	for i := range credit { // unread, they hold every stream the puller grants
		if err := push.Send(ctxFor(t), []byte(fmt.Sprint("before ", i))); err != nil {
			t.Fatal(err)
		}
	}
	waiting, cancel := context.WithTimeout(ctxFor(t), 200*time.Millisecond)
	defer cancel()
	if err := push.Send(waiting, []byte("given up")); weida.KindOf(err) != weida.KindCanceled {
		t.Fatalf("a send with no stream credit: %v, want Canceled once its context ended", err)
	}
	for i := range credit {
		recvNumbered(t, srv.pull, uint64(i), fmt.Sprint("before ", i))
	}
	if err := push.Send(ctxFor(t), []byte("after")); err != nil {
		t.Fatal(err)
	}
	recvNumbered(t, srv.pull, credit, "after")
}

func TestASendWhoseHeaderThePeerWouldRefuseSpendsNoSequenceNumber(t *testing.T) {
	srv := pushpullServe(t, weida.Config{Guarantees: seqReassemble, Limits: weida.Limits{MaxHeaderBytes: 256}})
	push := pushpullPusher(t, runtimeWith(t, weida.Config{Guarantees: seqReassemble}), nil, srv.url)
	if err := push.Send(ctxFor(t), []byte("first")); err != nil {
		t.Fatal(err)
	}
	// Within the wire's own cap of 512 bytes, above this peer's 256.
	tooLong := weida.TransferMeta{Tracestate: strings.Repeat("a", 300)}
	if err := push.SendWith(ctxFor(t), tooLong, []byte("refused")); weida.KindOf(err) != weida.KindLimitExceeded {
		t.Fatalf("Send with a header the peer would refuse: %v, want LimitExceeded", err)
	}
	if _, err := push.Open(ctxFor(t), tooLong); weida.KindOf(err) != weida.KindLimitExceeded {
		t.Fatalf("Open with a header the peer would refuse: %v, want LimitExceeded", err)
	}
	if err := push.Send(ctxFor(t), []byte("after")); err != nil {
		t.Fatal(err)
	}
	recvNumbered(t, srv.pull, 0, "first")
	recvNumbered(t, srv.pull, 1, "after")
}

// A numbered header that fits the peer's max_header_bytes with its real
// number goes out: the check is made with the number the send will carry,
// not the largest there is (which refused headers within 8 bytes of the
// limit).
func TestANumberedHeaderThatFitsThePeersLimitIsSent(t *testing.T) {
	const limit = 256
	srv := pushpullServe(t, weida.Config{Guarantees: seqReassemble, Limits: weida.Limits{MaxHeaderBytes: limit}})
	// The longest tracestate an unnumbered header fits with, found by
	// sending to a puller at the same path and limit that numbers nothing.
	plainSrv := pushpullServe(t, weida.Config{Limits: weida.Limits{MaxHeaderBytes: limit}})
	plain := pushpullPusher(t, testRuntime(t), nil, plainSrv.url)
	fits := 0
	for n := 200; n <= limit; n++ {
		err := plain.SendWith(ctxFor(t), weida.TransferMeta{Tracestate: strings.Repeat("a", n)}, []byte("probe"))
		if weida.KindOf(err) == weida.KindLimitExceeded {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fits = n
		if _, _, err := plainSrv.pull.Recv(ctxFor(t), 64); err != nil {
			t.Fatal(err)
		}
	}
	if fits == 0 || fits == limit {
		t.Fatalf("no tracestate length between 200 and %d fitted exactly (%d)", limit, fits)
	}
	// Sequence number 0 adds two bytes (key 6 and its value): with a
	// tracestate two shorter the numbered header is exactly as long.
	push := pushpullPusher(t, runtimeWith(t, weida.Config{Guarantees: seqReassemble}), nil, srv.url)
	if err := push.SendWith(ctxFor(t), weida.TransferMeta{Tracestate: strings.Repeat("a", fits-2)}, []byte("edge")); err != nil {
		t.Fatalf("a numbered header as long as the longest that fits: %v", err)
	}
	recvNumbered(t, srv.pull, 0, "edge")
}
