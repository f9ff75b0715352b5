package security

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// TestIdentityFileIsOwnerOnly: LoadOrCreateIdentity creates the file with
// mode 0600 even under a permissive umask, loads it back unchanged on the
// next start, and leaves no temporary file behind.
func TestIdentityFileIsOwnerOnly(t *testing.T) {
	old := syscall.Umask(0) // the most permissive umask: the mode must not come from it
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "id.pem")
	id, created, err := weida.LoadOrCreateIdentity(path, nil)
	if err != nil || !created {
		t.Fatalf("first start: created %v, %v", created, err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode %v, want a regular file with 0600", st.Mode())
	}
	before, _ := os.ReadFile(path)
	again, created, err := weida.LoadOrCreateIdentity(path, nil)
	if err != nil || created {
		t.Fatalf("second start: created %v, %v; want the file loaded", created, err)
	}
	if again.Fingerprint() != id.Fingerprint() {
		t.Fatal("the second start has another key")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("loading rewrote the identity file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the directory holds %d entries, want only the identity file", len(entries))
	}
}

// TestIdentityFileIsNeverOverwritten: writing over an existing file, a
// file that does not parse, or a symbolic link (even a dangling one) fails
// with fs.ErrExist and changes nothing — not the file, not the link's
// target.
func TestIdentityFileIsNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	id := newIdentity(t)
	existing := filepath.Join(dir, "existing.pem")
	if err := id.WritePEMFile(existing); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not an identity"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target.pem")
	link := filepath.Join(dir, "link.pem")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	other := newIdentity(t)
	for _, path := range []string{existing, garbage, link} {
		before, _ := os.ReadFile(path)
		if err := other.WritePEMFile(path); !errors.Is(err, fs.ErrExist) || !errors.Is(err, weida.ErrIO) {
			t.Fatalf("writing over %s: %v, want an Io error satisfying fs.ErrExist", filepath.Base(path), err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatalf("%s changed", filepath.Base(path))
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("writing over a dangling link created its target: %v", err)
	}
	// A file that does not parse is an error, and it is left as it was.
	if _, _, err := weida.LoadOrCreateIdentity(garbage, nil); err == nil {
		t.Fatal("a garbage identity file was accepted")
	}
	if b, _ := os.ReadFile(garbage); string(b) != "not an identity" {
		t.Fatal("LoadOrCreate replaced a file it could not parse")
	}
}

// TestIdentityFileRace: starters racing on one new path agree on one key;
// exactly one of them created it.
func TestIdentityFileRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id.pem")
	const starters = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
		keys    = map[weida.Fingerprint]bool{}
	)
	for range starters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, c, err := weida.LoadOrCreateIdentity(path, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			keys[id.Fingerprint()] = true
			if c {
				created++
			}
		}()
	}
	wg.Wait()
	if created != 1 || len(keys) != 1 {
		t.Fatalf("%d starters created the file and they hold %d keys; want 1 and 1", created, len(keys))
	}
}
