package store_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// Two queues hold messages with the same body, so they share one payload
// file. A message settled in one queue comes back after a power cut when
// its SETTLE was not durable; the file must be there then, whichever queue
// let go of the body last and however it did. (Before, /a refused to open:
// its live message's payload was missing.)

// sharedBody admits the same file-sized body to two Flushed queues of one
// store on the simulated disk.
func sharedBody(t *testing.T) (disk *faultfs.Disk, s *store.Store, a, b *store.Queue, inA, inB store.Message, body []byte) {
	t.Helper()
	disk = faultfs.New(1)
	s = openOnDisk(t, disk)
	var err error
	if a, _, err = s.OpenQueue([]byte("/a"), store.Flushed); err != nil {
		t.Fatal(err)
	}
	if b, _, err = s.OpenQueue([]byte("/b"), store.Flushed); err != nil {
		t.Fatal(err)
	}
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
