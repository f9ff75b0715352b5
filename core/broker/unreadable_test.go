package broker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/store"
)

// Issue 18 finding 2: one unreadable payload stopped delivery to every
// consumer (its failed open marked each subscription broken in turn).

// fileBody is a body too large to ride inline in the journal, so it has a
// payload file of its own.
func fileBody(b byte) []byte { return bytes.Repeat([]byte{b}, 2*store.MaxInlineBodyBytes) }

// payloadFile is where the store keeps body's payload under dir.
func payloadFile(t *testing.T, dir string, body []byte) string {
	t.Helper()
	sum := sha256.Sum256(body)
	name := hex.EncodeToString(sum[:])
	var found string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Name() == name {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no payload file %s under %s", name, dir)
	}
	return found
}

// errorLog collects what the broker told OnError.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) add(_ string, err error) { l.mu.Lock(); l.errs = append(l.errs, err); l.mu.Unlock() }

func (l *errorLog) payloadErrors() []*store.PayloadError {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*store.PayloadError
	for _, err := range l.errs {
		if pe := (*store.PayloadError)(nil); errors.As(err, &pe) {
			out = append(out, pe)
		}
	}
	return out
}

// startWritten serves one Written queue at /jobs in a fresh directory.
func startWritten(t *testing.T, log *errorLog, fsys store.FS) (*testBroker, string, string) {
	t.Helper()
	dir := t.TempDir()
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs", Durability: Written}}, DataDir: dir,
		OnError: log.add, storeFS: fsys})
	return tb, tb.binding.URL("/jobs"), dir
}

// takeEither is the next delivery of either consumer.
func takeEither(t *testing.T, a, b *holder) received {
	t.Helper()
	select {
	case r := <-a.in:
		a.in <- r
		return a.take(t)
	case r := <-b.in:
		b.in <- r
		return b.take(t)
	case <-ctxFor(t).Done():
		t.Fatal("no delivery at either consumer")
		panic("unreachable")
	}
}

func TestAMissingPayloadIsQuarantinedAndTheRestFlowsToEveryConsumer(t *testing.T) {
	var log errorLog
	tb, url, dir := startWritten(t, &log, nil)
	p := newProducer(t, url)
	lost, readable := fileBody('a'), fileBody('b')
	p.mustSendLevel(t, weida.Stored, "t.0", lost)
	p.mustSendLevel(t, weida.Stored, "t.0", readable)
	if err := os.Remove(payloadFile(t, dir, lost)); err != nil {
		t.Fatal(err)
	}
	a, b := newHolder(t, url, 1, 10), newHolder(t, url, 1, 10)
	tb.awaitCredit(t, "/jobs", 2, 10)
	got := takeEither(t, a, b)
	if !bytes.Equal(got.body, readable) {
		t.Fatalf("received %d bytes of %q, want the readable message", len(got.body), got.body[:1])
	}
	got.settle(t)
	tb.awaitSettled(t, "/jobs")
	// Both consumers still take deliveries (nothing marked them broken):
	// round-robin hands them one each.
	p.mustSendLevel(t, weida.Stored, "t.0", []byte("next 1"))
	p.mustSendLevel(t, weida.Stored, "t.0", []byte("next 2"))
	a.take(t).settle(t)
	b.take(t).settle(t)
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Quarantined != 1 || s.Ready != 0 || s.Deferred != 0 || s.Bytes != 0 {
		t.Fatalf("stats %+v, want the lost message quarantined and nothing else held", s)
	}
	if pes := log.payloadErrors(); len(pes) != 1 || !errors.Is(pes[0], store.ErrPayloadMissing) || pes[0].Digest != sha256.Sum256(lost) {
		t.Fatalf("OnError heard %v, want the missing payload once, with its digest", pes)
	}
}

func TestABodyFailingItsDigestIsResetAndQuarantined(t *testing.T) {
	var log errorLog
	tb, url, dir := startWritten(t, &log, nil)
	p := newProducer(t, url)
	// Larger than a delivery's copy buffer, so bytes are out before the
	// digest check at the end fails.
	corrupt, readable := bytes.Repeat([]byte{'c'}, 3*readChunk), fileBody('d')
	p.mustSendLevel(t, weida.Stored, "t.0", corrupt)
	p.mustSendLevel(t, weida.Stored, "t.0", readable)
	// Zeros of the right length: only the digest tells them apart.
	if err := os.WriteFile(payloadFile(t, dir, corrupt), make([]byte, len(corrupt)), 0o600); err != nil {
		t.Fatal(err)
	}
	// One credit, so the corrupt message goes first: the readable one
	// can only follow once the credit came back.
	c := newConsumer(t, url, "t.0", 1)
	body, _, _, err := c.RecvReporting(ctxFor(t), 1<<20)
	if err == nil {
		t.Fatalf("received %d bytes starting %q whole; want the corrupt transfer cut short", len(body), body[:1])
	}
	if got := c.recv(t); !bytes.Equal(got.body, readable) {
		t.Fatalf("received %d bytes starting %q, want the readable message", len(got.body), got.body[:1])
	} else {
		got.settle(t)
	}
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Quarantined != 1 || s.Ready != 0 || s.Delivered != 1 {
		t.Fatalf("stats %+v, want the corrupt message quarantined, one delivery written", s)
	}
	if pes := log.payloadErrors(); len(pes) != 1 || !errors.Is(pes[0], store.ErrPayloadCorrupt) {
		t.Fatalf("OnError heard %v, want the corrupt payload once", pes)
	}
}

// flakyFS fails the next n read-only opens of a payload file with EMFILE.
type flakyFS struct {
	store.OSFS
	failing atomic.Int64
	failed  atomic.Int64
}

func (f *flakyFS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	if flag == os.O_RDONLY && strings.Contains(name, string(filepath.Separator)+"payload"+string(filepath.Separator)) &&
		f.failing.Add(-1) >= 0 {
		f.failed.Add(1)
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EMFILE}
	}
	return f.OSFS.OpenFile(name, flag, perm)
}

func TestATransientReadFailureIsRetriedWithoutHoldingTheQueue(t *testing.T) {
	var log errorLog
	fsys := &flakyFS{}
	tb, url, _ := startWritten(t, &log, fsys)
	p := newProducer(t, url)
	flaky, next := fileBody('e'), []byte("small, inline")
	p.mustSendLevel(t, weida.Stored, "t.0", flaky)
	p.mustSendLevel(t, weida.Stored, "t.0", next)
	fsys.failing.Store(3)
	h := newHolder(t, url, 1, 10)
	// The inline body needs no file and passes the one waiting its turn.
	if got := h.take(t); !bytes.Equal(got.body, next) {
		t.Fatalf("first delivery %d bytes, want the inline message while the other waits", len(got.body))
	} else {
		got.settle(t)
	}
	got := h.take(t)
	if !bytes.Equal(got.body, flaky) || got.attempt > 1 {
		t.Fatalf("second delivery %d bytes at attempt %d, want the retried body, first attempt", len(got.body), got.attempt)
	}
	got.settle(t)
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Quarantined != 0 || s.Deferred != 0 || s.Ready != 0 || fsys.failed.Load() != 3 {
		t.Fatalf("stats %+v after %d failed opens, want nothing quarantined or left", s, fsys.failed.Load())
	}
}
