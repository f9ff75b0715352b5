package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// logLines collects what the store logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestWrittenQueueDropsWhatAnOSCrashTook is BROKER.md §13.3 step 4 as
// amended: a Written queue whose payload files an OS crash took (missing)
// or tore (zeros of the right length) drops those messages, counts and
// logs each by seq and digest, and serves the rest. The drop is final: the
// same body admitted again later does not revive the dropped message.
func TestWrittenQueueDropsWhatAnOSCrashTook(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	q, _ := openQueue(t, s, store.Written)
	var msgs []store.Message
	for i := 0; i < 5; i++ {
		msgs = append(msgs, admit(t, q, bodyOf(i, fileSized+i), store.Meta{}))
	}
	mustClose(t, s)
	os.Remove(store.PayloadPath(dir, msgs[1].Digest))
	os.WriteFile(store.PayloadPath(dir, msgs[3].Digest), make([]byte, msgs[3].BodyLen), 0o600)

	var log logLines
	s = openStore(t, dir, store.Options{Logf: log.logf})
	q, live := openQueue(t, s, store.Written)
	if want := []uint64{msgs[0].Seq, msgs[2].Seq, msgs[4].Seq}; !equalSeqs(seqsOf(live), want) {
		t.Fatalf("live after recovery %v, want %v", seqsOf(live), want)
	}
	if st := q.Stats(); st.DroppedAtRecovery != 2 || st.Live != 3 {
		t.Fatalf("stats %+v, want 2 dropped and 3 live", st)
	}
	for _, i := range []int{1, 3} {
		if want := fmt.Sprintf("dropped seq %d at recovery: payload %s (sha256 %x)", msgs[i].Seq,
			store.PayloadPath(dir, msgs[i].Digest), msgs[i].Digest); !strings.Contains(log.text(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.text())
		}
	}
	for _, i := range []int{0, 2, 4} {
		if got := readBody(t, q, msgs[i].Seq); !bytes.Equal(got, bodyOf(i, fileSized+i)) {
			t.Errorf("seq %d read back wrong", msgs[i].Seq)
		}
	}
	again := admit(t, q, bodyOf(1, fileSized+1), store.Meta{})
	mustClose(t, s)

	s = openStore(t, dir, store.Options{Logf: log.logf})
	defer s.Close()
	q, live = openQueue(t, s, store.Written)
	if want := []uint64{msgs[0].Seq, msgs[2].Seq, msgs[4].Seq, again.Seq}; !equalSeqs(seqsOf(live), want) {
		t.Fatalf("live after the second recovery %v, want %v (a dropped message came back)", seqsOf(live), want)
	}
	if st := q.Stats(); st.DroppedAtRecovery != 0 {
		t.Fatalf("the second recovery dropped %d messages again", st.DroppedAtRecovery)
	}
}

// readAllOf reads a body through OpenBody and returns what it read and how
// the read ended.
func readAllOf(t *testing.T, q *store.Queue, seq uint64) ([]byte, error) {
	t.Helper()
	rc, err := q.OpenBody(seq)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// requirePayloadError checks err wraps sentinel and names seq and digest.
func requirePayloadError(t *testing.T, err, sentinel error, m store.Message) {
	t.Helper()
	var pe *store.PayloadError
	if !errors.Is(err, sentinel) || !errors.As(err, &pe) || pe.Seq != m.Seq || pe.Digest != m.Digest {
		t.Fatalf("error %v, want %v for seq %d digest %x", err, sentinel, m.Seq, m.Digest)
	}
	if store.IsTransient(err) {
		t.Fatalf("%v counts as transient", err)
	}
}

// TestDeliveryReadVerifiesTheBody: a read for delivery of a payload file
// whose bytes no longer match the message ends in ErrPayloadCorrupt
// instead of io.EOF (so the broker resets rather than finishes), never
// hands over more than the recorded length, and a missing file is
// ErrPayloadMissing. Before the fix a zeroed file read back as a valid body.
func TestDeliveryReadVerifiesTheBody(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	good := admit(t, q, bodyOf(0, fileSized), store.Meta{})
	zeroed := admit(t, q, bodyOf(1, fileSized), store.Meta{})
	longer := admit(t, q, bodyOf(2, 100<<10), store.Meta{})
	missing := admit(t, q, bodyOf(3, fileSized), store.Meta{})
	os.WriteFile(store.PayloadPath(dir, zeroed.Digest), make([]byte, zeroed.BodyLen), 0o600)
	os.WriteFile(store.PayloadPath(dir, longer.Digest), append(bodyOf(2, 100<<10), "tail"...), 0o600)
	os.Remove(store.PayloadPath(dir, missing.Digest))

	if b, err := readAllOf(t, q, good.Seq); err != nil || !bytes.Equal(b, bodyOf(0, fileSized)) {
		t.Fatalf("good body: %d bytes, %v", len(b), err)
	}
	_, err := readAllOf(t, q, zeroed.Seq)
	requirePayloadError(t, err, store.ErrPayloadCorrupt, zeroed)
	b, err := readAllOf(t, q, longer.Seq)
	requirePayloadError(t, err, store.ErrPayloadCorrupt, longer)
	if uint64(len(b)) > longer.BodyLen {
		t.Fatalf("the reader handed over %d bytes of a %d-byte body", len(b), longer.BodyLen)
	}
	_, err = q.OpenBody(missing.Seq)
	requirePayloadError(t, err, store.ErrPayloadMissing, missing)
}

// openOnDisk opens a store in /data of a simulated disk.
func openOnDisk(t *testing.T, disk *faultfs.Disk) *store.Store {
	t.Helper()
	s, err := store.Open("/data", store.Options{FS: disk.FS(), Logf: t.Logf})
	if err != nil {
		t.Fatalf("Open on the simulated disk: %v", err)
	}
	return s
}

// TestTransientReadFailuresAreRecognisable: EIO, EMFILE and ENFILE opening
// a payload, and EIO reading one, are transient (IsTransient) and carry
// the message; they are neither missing nor corrupt.
func TestTransientReadFailuresAreRecognisable(t *testing.T) {
	disk := faultfs.New(1)
	s := openOnDisk(t, disk)
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	m := admit(t, q, bodyOf(0, 64<<10), store.Meta{})
	hex := fmt.Sprintf("%x", m.Digest)
	for _, errno := range []error{syscall.EIO, syscall.EMFILE, syscall.ENFILE} {
		remove := disk.Inject(faultfs.Fault{Op: faultfs.OpOpen, Path: hex, Err: errno})
		_, err := q.OpenBody(m.Seq)
		remove()
		var pe *store.PayloadError
		if !store.IsTransient(err) || !errors.Is(err, errno) || !errors.As(err, &pe) || pe.Seq != m.Seq ||
			errors.Is(err, store.ErrPayloadMissing) {
			t.Errorf("open failing with %v: OpenBody = %v, want a transient PayloadError for seq %d", errno, err, m.Seq)
		}
	}
	remove := disk.Inject(faultfs.Fault{Op: faultfs.OpRead, Path: hex, Err: syscall.EIO, After: 1})
	_, err := readAllOf(t, q, m.Seq)
	remove()
	if !store.IsTransient(err) || errors.Is(err, store.ErrPayloadCorrupt) {
		t.Fatalf("a read failing with EIO ended in %v, want a transient error", err)
	}
	if b, err := readAllOf(t, q, m.Seq); err != nil || !bytes.Equal(b, bodyOf(0, 64<<10)) {
		t.Fatalf("after the fault passed: %d bytes, %v", len(b), err)
	}
}

// TestQuarantineSurvivesAPowerCut: a quarantined message leaves the live
// set at once and for good — the record is fsynced, so a power cut right
// after does not bring it back — pins the low-water mark no more, and its
// payload is set aside (durably) under quarantine/ for an operator.
func TestQuarantineSurvivesAPowerCut(t *testing.T) {
	disk := faultfs.New(1)
	s := openOnDisk(t, disk)
	q, _ := openQueue(t, s, store.Flushed)
	bad := admit(t, q, bodyOf(0, fileSized), store.Meta{})
	next := admit(t, q, bodyOf(1, fileSized), store.Meta{})
	zeroFile(t, disk, store.PayloadPath("/data", bad.Digest), bad.BodyLen)
	if err := q.Quarantine(bad.Seq, "payload does not match its digest"); err != nil {
		t.Fatal(err)
	}
	if st := q.Stats(); st.Quarantined != 1 || st.Live != 1 || st.LowWater != next.Seq {
		t.Fatalf("stats after Quarantine %+v, want 1 quarantined, 1 live, low water %d", st, next.Seq)
	}
	if _, err := q.OpenBody(bad.Seq); err == nil {
		t.Fatal("a quarantined message still opens for delivery")
	}
	if err := q.Quarantine(bad.Seq, "again"); err != nil {
		t.Fatalf("a second Quarantine of the same seq: %v", err)
	}
	disk.PowerCut()

	s = openOnDisk(t, disk)
	defer s.Close()
	q, live := openQueue(t, s, store.Flushed)
	if !equalSeqs(seqsOf(live), []uint64{next.Seq}) || q.Stats().Quarantined != 1 {
		t.Fatalf("after the cut: live %v, stats %+v; want only seq %d live and 1 quarantined", seqsOf(live), q.Stats(), next.Seq)
	}
	if disk.Durable(store.PayloadPath("/data", bad.Digest)) {
		t.Fatal("the quarantined payload is still where a later Admit would dedup against it")
	}
	if kept := fmt.Sprintf("/data/quarantine/%x.%d", bad.Digest, bad.Seq); !disk.Durable(kept) {
		t.Fatalf("the quarantined payload was not set aside at %s", kept)
	}
}

// TestAdmitAfterQuarantineStoresASoundBody: the same body admitted after
// its payload was quarantined gets a sound payload file of its own and
// reads back whole, on both durabilities and after a restart. Before, it
// deduplicated against the quarantined file: certified Stored, then
// quarantined in its turn and lost.
func TestAdmitAfterQuarantineStoresASoundBody(t *testing.T) {
	for _, d := range []store.Durability{store.Written, store.Flushed} {
		disk := faultfs.New(1)
		s := openOnDisk(t, disk)
		q, _ := openQueue(t, s, d)
		body := bodyOf(7, fileSized)
		bad := admit(t, q, body, store.Meta{})
		zeroFile(t, disk, store.PayloadPath("/data", bad.Digest), bad.BodyLen)
		if _, err := readAllOf(t, q, bad.Seq); !errors.Is(err, store.ErrPayloadCorrupt) {
			t.Fatalf("%v: the zeroed body read as %v, want ErrPayloadCorrupt", d, err)
		}
		if err := q.Quarantine(bad.Seq, "digest mismatch"); err != nil {
			t.Fatal(err)
		}
		again := admit(t, q, body, store.Meta{})
		if b, err := readAllOf(t, q, again.Seq); err != nil || !bytes.Equal(b, body) {
			t.Fatalf("%v: the body admitted again read %d bytes, %v", d, len(b), err)
		}
		s.Close()
		s = openOnDisk(t, disk)
		q, live := openQueue(t, s, d)
		if !equalSeqs(seqsOf(live), []uint64{again.Seq}) {
			t.Fatalf("%v: after a restart live %v, want %d", d, seqsOf(live), again.Seq)
		}
		if b, err := readAllOf(t, q, again.Seq); err != nil || !bytes.Equal(b, body) {
			t.Fatalf("%v: after a restart the body read %d bytes, %v", d, len(b), err)
		}
		s.Close()
	}
}

// zeroFile overwrites a file on the simulated disk with size zeros and
// fsyncs it: damage that survives a power cut.
func zeroFile(t *testing.T, disk *faultfs.Disk, path string, size uint64) {
	t.Helper()
	f, err := disk.FS().OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, size))
	f.Sync()
	f.Close()
}

// TestRecoveryRehashesInBoundedMemory: recovery re-hashes a 32 MiB payload
// streamed, allocating far less than the payload (one pooled buffer).
func TestRecoveryRehashesInBoundedMemory(t *testing.T) {
	const size = 32 << 20
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	q, _ := openQueue(t, s, store.Flushed)
	big := admit(t, q, bytes.Repeat([]byte("0123456789abcdef"), size/16), store.Meta{})
	mustClose(t, s)
	os.WriteFile(store.PayloadPath(dir, big.Digest), make([]byte, size), 0o600) // same length, wrong bytes

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s = openStore(t, dir, store.Options{})
	runtime.ReadMemStats(&after)
	defer s.Close()
	if _, _, err := s.OpenQueue(queuePath, store.Flushed); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("OpenQueue = %v, want the zeroed 32 MiB payload found corrupt", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("recovery allocated %d bytes to check a %d-byte payload", grew, size)
	}
}

// TestQuarantineLeavesASharedPayloadToItsOtherMessages: two messages with
// the same body share one payload file (dedup). Quarantining one must not
// take the file from the other: it stays readable, survives a power cut
// (a Flushed queue whose live message's payload was gone refused to open
// as a corrupt store), and the file is set aside only when the last message
// naming it is quarantined.
func TestQuarantineLeavesASharedPayloadToItsOtherMessages(t *testing.T) {
	disk := faultfs.New(1)
	s := openOnDisk(t, disk)
	q, _ := openQueue(t, s, store.Flushed)
	body := bodyOf(3, fileSized)
	first := admit(t, q, body, store.Meta{})
	second := admit(t, q, body, store.Meta{})
	if err := q.Quarantine(first.Seq, "power-loss test"); err != nil {
		t.Fatal(err)
	}
	if b, err := readAllOf(t, q, second.Seq); err != nil || !bytes.Equal(b, body) {
		t.Fatalf("the other message of a quarantined payload read %d bytes, %v", len(b), err)
	}
	disk.PowerCut()

	s = openOnDisk(t, disk)
	defer s.Close()
	q, live := openQueue(t, s, store.Flushed)
	if !equalSeqs(seqsOf(live), []uint64{second.Seq}) {
		t.Fatalf("after the cut: live %v, want %d", seqsOf(live), second.Seq)
	}
	if b, err := readAllOf(t, q, second.Seq); err != nil || !bytes.Equal(b, body) {
		t.Fatalf("after the cut the other message read %d bytes, %v", len(b), err)
	}
	if err := q.Quarantine(second.Seq, "power-loss test"); err != nil {
		t.Fatal(err)
	}
	if disk.Durable(store.PayloadPath("/data", second.Digest)) {
		t.Fatal("the payload is still in the store after its last message was quarantined")
	}
	if kept := fmt.Sprintf("/data/quarantine/%x.%d", second.Digest, second.Seq); !disk.Durable(kept) {
		t.Fatalf("the payload was not set aside at %s", kept)
	}
}
