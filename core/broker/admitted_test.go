package broker

import (
	"io/fs"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/store"
)

// Issue 18 finding 5: an admission the store recorded must never be
// answered Rejected, since the message may come back at the next start.

// syncFailingFS fails every journal fsync while failing is set.
type syncFailingFS struct {
	store.OSFS
	failing atomic.Bool
}

func (f *syncFailingFS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	file, err := f.OSFS.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, ".seg") {
		return file, err
	}
	return syncFailingFile{file, f}, nil
}

type syncFailingFile struct {
	store.File
	fs *syncFailingFS
}

func (f syncFailingFile) Sync() error {
	if f.fs.failing.Load() {
		return &fs.PathError{Op: "fsync", Path: "journal", Err: syscall.EIO}
	}
	return f.File.Sync()
}

func TestAFlushedAdmissionWhoseFsyncFailedIsNoVerdictNeverRejected(t *testing.T) {
	fsys := &syncFailingFS{}
	var log errorLog
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs", Durability: Flushed}}, DataDir: t.TempDir(),
		OnError: log.add, storeFS: fsys})
	url := tb.binding.URL("/jobs")
	p := newProducer(t, url)
	fsys.failing.Store(true)
	_, err := p.send(t, "t.0", []byte("recorded, maybe durable"))
	if kindOf(err) != weida.KindNoReply {
		t.Fatalf("send with the journal fsync failing: %v (%v), want NoReply: the store recorded it", err, kindOf(err))
	}
	// The queue holds what it recorded, and delivers it.
	if s := tb.stats(t, "/jobs"); s.Ready != 1 || s.Unconfirmed != 1 || s.Refused != 0 {
		t.Fatalf("stats %+v, want the recorded message held and counted unconfirmed", s)
	}
	fsys.failing.Store(false)
	got := newConsumer(t, url, "t.0", 1).recv(t)
	if string(got.body) != "recorded, maybe durable" {
		t.Fatalf("delivered %q", got.body)
	}
	got.settle(t)
	tb.awaitSettled(t, "/jobs")
}

func TestAStoredAdmissionThatRetireOvertakesIsStillStored(t *testing.T) {
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs", Durability: Flushed}}, DataDir: t.TempDir()})
	url := tb.binding.URL("/jobs")
	p := newProducer(t, url)
	q := tb.byPath["/jobs"]
	reading, retiring := make(chan struct{}), make(chan struct{})
	if err := q.call(ctxFor(t), func() {
		q.readBufs.onAcquire = func() { close(reading); <-retiring }
	}); err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		level, err := p.send(t, "t.0", []byte("past the door"))
		if err == nil && level != weida.Stored {
			t.Errorf("confirm level %d, want Stored", level)
		}
		sent <- err
	}()
	<-reading // the admission passed retire's door before it closed
	done := tb.retireBegun(t, "/jobs", time.Minute)
	close(retiring)
	if err := <-sent; err != nil {
		t.Fatalf("an admission the store recorded was answered %v (%v), want Stored", err, kindOf(err))
	}
	<-done
	if s := tb.stats(t, "/jobs"); s.Ready != 1 || s.Refused != 0 {
		t.Fatalf("stats %+v, want the stored message held", s)
	}
}
