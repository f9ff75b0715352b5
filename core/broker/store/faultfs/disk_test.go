package faultfs_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/weida-go/weida/core/broker/store/faultfs"
)

func write(t *testing.T, v *faultfs.FS, path, data string, syncFile bool) {
	t.Helper()
	f, err := v.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if syncFile {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
}

// read returns the file's content, or "<missing>".
func read(t *testing.T, v *faultfs.FS, path string) string {
	t.Helper()
	f, err := v.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dataDisk is a fresh disk with a durable empty /data, and a view of it.
func dataDisk(t *testing.T) (*faultfs.Disk, *faultfs.FS) {
	t.Helper()
	d := faultfs.New(1)
	v := d.FS()
	if err := v.MkdirAll("/data", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := v.SyncDir("/"); err != nil {
		t.Fatal(err)
	}
	return d, v
}

// TestPowerCutKeepsOnlyWhatWasSynced is the disk's contract: a file's data
// survives only up to its last Sync, and a name only once its directory
// was synced after it was made.
func TestPowerCutKeepsOnlyWhatWasSynced(t *testing.T) {
	d, v := dataDisk(t)
	write(t, v, "/data/nothing-synced", "a", false)
	write(t, v, "/data/file-synced-only", "b", true)
	write(t, v, "/data/dir-synced-only", "c", false)
	write(t, v, "/data/both", "d", true)
	if err := v.SyncDir("/data"); err != nil {
		t.Fatal(err)
	}
	write(t, v, "/data/renamed-src", "f", true)
	if err := v.SyncDir("/data"); err != nil {
		t.Fatal(err)
	}
	write(t, v, "/data/after-dir-sync", "e", true)
	if err := v.Rename("/data/renamed-src", "/data/renamed-dst"); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("/data/both"); err != nil {
		t.Fatal(err)
	}
	d.PowerCut()
	if _, err := v.ReadDir("/data"); !errors.Is(err, faultfs.ErrPowerLost) {
		t.Fatalf("a view from before the cut answered %v, want ErrPowerLost", err)
	}
	w := d.FS()
	for path, want := range map[string]string{
		"/data/nothing-synced":   "",
		"/data/file-synced-only": "b",
		"/data/dir-synced-only":  "",
		"/data/both":             "d", // its removal was never made durable
		"/data/after-dir-sync":   "<missing>",
		"/data/renamed-src":      "f", // nor the rename
		"/data/renamed-dst":      "<missing>",
	} {
		if got := read(t, w, path); got != want {
			t.Errorf("%s after the cut = %q, want %q", path, got, want)
		}
	}
}

// TestAnUnsyncedDirectoryTakesItsFilesWithIt: a file synced in a directory
// whose own name never reached its parent is lost with it.
func TestAnUnsyncedDirectoryTakesItsFilesWithIt(t *testing.T) {
	d := faultfs.New(1)
	v := d.FS()
	if err := v.MkdirAll("/data/q", 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, v, "/data/q/seg", "x", true)
	if err := v.SyncDir("/data/q"); err != nil {
		t.Fatal(err)
	}
	d.PowerCut()
	if got := read(t, d.FS(), "/data/q/seg"); got != "<missing>" {
		t.Fatalf("a file under an unsynced directory survived the cut: %q", got)
	}
}

// TestCutAfterStopsTheNthMutation: the armed cut replaces the n-th
// mutating operation, which fails and leaves no trace.
func TestCutAfterStopsTheNthMutation(t *testing.T) {
	d := faultfs.New(1)
	v := d.FS()
	d.CutAfter(2)
	f, err := v.OpenFile("/f", os.O_WRONLY|os.O_CREATE, 0o600) // 1
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, faultfs.ErrPowerLost) { // 2
		t.Fatalf("the second mutation answered %v, want ErrPowerLost", err)
	}
	if d.Cuts() != 1 {
		t.Fatalf("Cuts = %d, want 1", d.Cuts())
	}
	if got := read(t, d.FS(), "/f"); got != "<missing>" {
		t.Fatalf("/f after the cut = %q", got)
	}
}

// TestFaultsFailChosenOperations: an injected fault fails the matching
// operations it counts, and only those.
func TestFaultsFailChosenOperations(t *testing.T) {
	d := faultfs.New(1)
	v := d.FS()
	remove := d.Inject(faultfs.Fault{Op: faultfs.OpSync, Path: "/bad", Err: syscall.EIO, After: 1, Times: 1})
	f, _ := v.OpenFile("/bad", os.O_WRONLY|os.O_CREATE, 0o600)
	g, _ := v.OpenFile("/good", os.O_WRONLY|os.O_CREATE, 0o600)
	results := []error{f.Sync(), g.Sync(), f.Sync(), f.Sync()}
	want := []error{nil, nil, syscall.EIO, nil}
	for i := range results {
		if !errors.Is(results[i], want[i]) || (want[i] == nil) != (results[i] == nil) {
			t.Errorf("sync %d = %v, want %v", i, results[i], want[i])
		}
	}
	remove()
}

// TestTearKeepsPartOfAnUnsyncedAppend: with Tear, some cut leaves more
// than the durable content of an appended file, never other bytes.
func TestTearKeepsPartOfAnUnsyncedAppend(t *testing.T) {
	grew := false
	for seed := uint64(0); seed < 20 && !grew; seed++ {
		d := faultfs.New(seed)
		d.Tear(true)
		v := d.FS()
		write(t, v, "/j", "durable|", true)
		v.SyncDir("/")
		f, _ := v.OpenFile("/j", os.O_WRONLY|os.O_APPEND, 0)
		f.Write([]byte("volatile"))
		d.PowerCut()
		got := read(t, d.FS(), "/j")
		if len(got) < len("durable|") || got[:8] != "durable|" {
			t.Fatalf("seed %d: the durable prefix did not survive: %q", seed, got)
		}
		rest := got[8:]
		for i := range rest {
			if rest[i] != 0 && rest[i] != "volatile"[i] {
				t.Fatalf("seed %d: the torn tail %q holds bytes never written", seed, rest)
			}
		}
		grew = len(rest) > 0
	}
	if !grew {
		t.Fatal("no torn cut in 20 seeds kept any unsynced bytes")
	}
}

// TestACheckDecidesEachOperation: a fault's Check sees every matching
// operation's path and fails it only when it returns an error.
func TestACheckDecidesEachOperation(t *testing.T) {
	d := faultfs.New(1)
	v := d.FS()
	var seen []string
	d.Inject(faultfs.Fault{Op: faultfs.OpSyncDir, Check: func(path string) error {
		seen = append(seen, path)
		if path == "/no" {
			return syscall.EROFS
		}
		return nil
	}})
	v.Mkdir("/yes", 0o700)
	v.Mkdir("/no", 0o700)
	if err := v.SyncDir("/yes"); err != nil {
		t.Fatalf("SyncDir(/yes) = %v, want nil", err)
	}
	if err := v.SyncDir("/no"); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("SyncDir(/no) = %v, want EROFS", err)
	}
	if len(seen) != 2 || seen[0] != "/yes" || seen[1] != "/no" {
		t.Fatalf("Check saw %v", seen)
	}
}

// TestWhatACutKeptIsDurable: an unsynced change a torn cut happened to
// keep is on the disk from then on; the next cut cannot undo it.
func TestWhatACutKeptIsDurable(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		d := faultfs.New(seed)
		d.Tear(true)
		v := d.FS()
		write(t, v, "/f", "x", true) // data durable, name not
		d.PowerCut()
		kept := read(t, d.FS(), "/f")
		d.PowerCut()
		if again := read(t, d.FS(), "/f"); again != kept {
			t.Fatalf("seed %d: the first cut left %q, the second %q", seed, kept, again)
		}
	}
}

// TestKillKeepsTheUnsyncedForALaterCut: a process crash ends the views and
// locks but keeps every write; only a power cut afterwards takes what was
// never synced.
func TestKillKeepsTheUnsyncedForALaterCut(t *testing.T) {
	d, v := dataDisk(t)
	write(t, v, "/data/synced", "kept", true)
	if err := v.SyncDir("/data"); err != nil {
		t.Fatal(err)
	}
	write(t, v, "/data/unsynced", "cache", false)
	if _, err := v.Lock("/data/LOCK"); err != nil {
		t.Fatal(err)
	}
	d.Kill()
	if _, err := v.OpenFile("/data/synced", os.O_RDONLY, 0); !errors.Is(err, faultfs.ErrPowerLost) {
		t.Fatalf("the dead process's view still works: %v", err)
	}
	w := d.FS()
	if got := read(t, w, "/data/unsynced"); got != "cache" {
		t.Fatalf("after a kill the unsynced file reads %q, want what the page cache held", got)
	}
	if l, err := w.Lock("/data/LOCK"); err != nil {
		t.Fatalf("the dead process's lock is still held: %v", err)
	} else {
		l.Close()
	}
	d.PowerCut()
	x := d.FS()
	if got := read(t, x, "/data/unsynced"); got != "<missing>" {
		t.Fatalf("after a later power cut the never-synced file reads %q", got)
	}
	if got := read(t, x, "/data/synced"); got != "kept" {
		t.Fatalf("the synced file reads %q", got)
	}
}
