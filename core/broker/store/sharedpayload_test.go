package store_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// Two queues hold messages with the same body, so they share one payload
// file. A message settled in one queue comes back after a power cut when
// its SETTLE was not durable; the file must be there then, whichever queue
// let go of the body last and however it did. (Before, /a refused to open:
// its live message's payload was missing.)

// openAB opens the Flushed queues /a and /b of s.
func openAB(t *testing.T, s *store.Store) (a, b *store.Queue) {
	t.Helper()
	var err error
	if a, _, err = s.OpenQueue([]byte("/a"), store.Flushed); err != nil {
		t.Fatal(err)
	}
	if b, _, err = s.OpenQueue([]byte("/b"), store.Flushed); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// sharedBody admits the same file-sized body to two Flushed queues of one
// store on the simulated disk.
func sharedBody(t *testing.T) (disk *faultfs.Disk, s *store.Store, a, b *store.Queue, inA, inB store.Message, body []byte) {
	t.Helper()
	disk = faultfs.New(1)
	s = openOnDisk(t, disk)
	a, b = openAB(t, s)
	body = bodyOf(5, 64<<10)
	return disk, s, a, b, admit(t, a, body, store.Meta{}), admit(t, b, body, store.Meta{}), body
}

// requireWholeAfterTheCut cuts the power, reopens the disk and requires
// /a to open with what is live there whole: the message settled in /a is
// either settled for good (its SETTLE was made durable before the body
// went) or back with its body.
func requireWholeAfterTheCut(t *testing.T, disk *faultfs.Disk, m store.Message, body []byte) {
	t.Helper()
	disk.PowerCut()
	s := openOnDisk(t, disk)
	defer s.Close()
	q, live, err := s.OpenQueue([]byte("/a"), store.Flushed)
	if err != nil {
		t.Fatalf("after the cut /a does not open: %v", err)
	}
	for _, l := range live {
		if got, err := readAllOf(t, q, l.Seq); l.Seq != m.Seq || err != nil || !bytes.Equal(got, body) {
			t.Fatalf("after the cut seq %d read %d bytes, %v; want only seq %d, whole", l.Seq, len(got), err, m.Seq)
		}
	}
}

// TestASharedPayloadOutlivesAnotherQueuesUndurableSettle: /a settles, then
// /b settles the last reference and removes the file once /b's journal is
// synced; /a's SETTLE was not.
func TestASharedPayloadOutlivesAnotherQueuesUndurableSettle(t *testing.T) {
	disk, _, a, b, inA, inB, body := sharedBody(t)
	if err := a.Settle(inA.Seq); err != nil {
		t.Fatal(err)
	}
	if err := b.Settle(inB.Seq); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil { // removes what /b freed, after syncing
		t.Fatal(err)
	}
	// The file system may commit the removal on its own schedule: a store
	// must not count on an unsynced removal being lost.
	if err := disk.FS().SyncDir(filepath.Dir(store.PayloadPath("/data", inA.Digest))); err != nil {
		t.Fatal(err)
	}
	requireWholeAfterTheCut(t, disk, inA, body)
}

// TestASharedPayloadOutlivesAQuarantineAfterAnUndurableSettle: /a settles,
// then /b quarantines the last reference, which sets the file aside.
func TestASharedPayloadOutlivesAQuarantineAfterAnUndurableSettle(t *testing.T) {
	disk, _, a, b, inA, inB, body := sharedBody(t)
	if err := a.Settle(inA.Seq); err != nil {
		t.Fatal(err)
	}
	if err := b.Quarantine(inB.Seq, "test"); err != nil {
		t.Fatal(err)
	}
	requireWholeAfterTheCut(t, disk, inA, body)
}

// TestTheStartupSweepDeletesOnlyWhatADurableSettleFreed: a message settled
// (its SETTLE written, not fsynced) before the process is killed is not
// live at the restart, whose sweep then deletes its body; a power cut
// after that must not bring the message back without it. (Before, /a
// refused to open: the sweep trusted a SETTLE only the page cache held.)
func TestTheStartupSweepDeletesOnlyWhatADurableSettleFreed(t *testing.T) {
	disk := faultfs.New(1)
	s := openOnDisk(t, disk)
	a, _, err := s.OpenQueue([]byte("/a"), store.Flushed)
	if err != nil {
		t.Fatal(err)
	}
	body := bodyOf(6, 64<<10)
	m := admit(t, a, body, store.Meta{})
	if err := a.Settle(m.Seq); err != nil {
		t.Fatal(err)
	}
	if err := store.Housekeep(a); err != nil { // the SETTLE is written, not fsynced
		t.Fatal(err)
	}
	disk.Kill()

	openOnDisk(t, disk) // recovery sees the SETTLE; the sweep deletes the body
	if err := disk.FS().SyncDir(filepath.Dir(store.PayloadPath("/data", m.Digest))); err != nil {
		t.Fatal(err) // the file system commits the removal on its own schedule
	}
	requireWholeAfterTheCut(t, disk, m, body)
}

// blockingFS is the simulated disk with one file's fsync held: once armed,
// the first Sync of a file whose path contains hold signals entered and
// waits for release.
type blockingFS struct {
	*faultfs.FS
	hold             string
	armed            atomic.Bool
	entered, release chan struct{}
	once             sync.Once
}

func (b *blockingFS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	f, err := b.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.Contains(name, b.hold) {
		return f, err
	}
	return &blockingFile{File: f, fs: b}, nil
}

type blockingFile struct {
	store.File
	fs *blockingFS
}

func (f *blockingFile) Sync() error {
	if !f.fs.armed.Load() {
		return f.File.Sync()
	}
	f.fs.once.Do(func() {
		close(f.fs.entered)
		<-f.fs.release
	})
	return f.File.Sync()
}

// TestARemovalDecidedBeforeAnAdmitLeavesThePayload: /a's writer decides to
// remove a freed payload and makes the settlements durable, /b's first and
// its own last; while its own fsync runs, /b admits and settles the same
// body, a SETTLE that fsync does not cover. The payload must stay: after a
// power cut /b's message is back, with its body.
func TestARemovalDecidedBeforeAnAdmitLeavesThePayload(t *testing.T) {
	disk := faultfs.New(1)
	bfs := &blockingFS{FS: disk.FS(), hold: store.QueueDir("/data", []byte("/a")),
		entered: make(chan struct{}), release: make(chan struct{})}
	s, err := store.Open("/data", store.Options{FS: bfs, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	a, b := openAB(t, s)
	body := bodyOf(7, 64<<10)
	inA := admit(t, a, body, store.Meta{})
	if err := a.Settle(inA.Seq); err != nil {
		t.Fatal(err)
	}
	bfs.armed.Store(true) // from now on /a's journal fsync waits
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }() // removes what /a freed
	<-bfs.entered
	inB := admit(t, b, body, store.Meta{})
	if err := b.Settle(inB.Seq); err != nil {
		t.Fatal(err)
	}
	if err := store.Housekeep(b); err != nil { // written, not fsynced
		t.Fatal(err)
	}
	close(bfs.release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := disk.FS().SyncDir(filepath.Dir(store.PayloadPath("/data", inB.Digest))); err != nil {
		t.Fatal(err) // the file system commits a removal on its own schedule
	}
	disk.PowerCut()
	s = openOnDisk(t, disk)
	defer s.Close()
	q, live, err := s.OpenQueue([]byte("/b"), store.Flushed)
	if err != nil {
		t.Fatalf("after the cut /b does not open: %v", err)
	}
	for _, l := range live {
		if got, err := readAllOf(t, q, l.Seq); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("after the cut seq %d read %d bytes, %v", l.Seq, len(got), err)
		}
	}
}

// TestOneBrokenJournalStopsNoOtherQueue: /b's journal fails an fsync; /a,
// healthy, still settles, closes and reopens, and the body it freed that
// /b may still need is kept.
func TestOneBrokenJournalStopsNoOtherQueue(t *testing.T) {
	disk := faultfs.New(1)
	s := openOnDisk(t, disk)
	a, b := openAB(t, s)
	body := bodyOf(8, 64<<10)
	inA, inB := admit(t, a, body, store.Meta{}), admit(t, b, body, store.Meta{})
	if err := b.Settle(inB.Seq); err != nil {
		t.Fatal(err)
	}
	disk.Inject(faultfs.Fault{Op: faultfs.OpSync, Path: store.QueueDir("/data", []byte("/b")), Err: syscall.EIO, Times: 1})
	if err := a.Settle(inA.Seq); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("/a close: %v", err)
	}
	if _, _, err := s.OpenQueue([]byte("/a"), store.Flushed); err != nil {
		t.Fatalf("/a reopen: %v", err)
	}
	if !fileOnDisk(disk, store.PayloadPath("/data", inA.Digest)) {
		t.Fatal("the body /b's undurable SETTLE may still need was removed")
	}
}

// fileOnDisk reports whether path exists on the disk now.
func fileOnDisk(disk *faultfs.Disk, path string) bool {
	f, err := disk.FS().OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
