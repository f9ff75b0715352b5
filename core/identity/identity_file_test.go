package identity

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

func TestWritePEMFileIsOwnerOnlyAndReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id.pem")
	id := mustGenerate(t)
	if err := id.WritePEMFile(path); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", info.Mode().Perm())
	}
	loaded, err := LoadPEMFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Fingerprint() != id.Fingerprint() {
		t.Fatal("reloaded identity has another key")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".weida-identity-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}
}

func TestWritePEMFileNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id.pem")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := mustGenerate(t).WritePEMFile(path)
	if errs.KindOf(err) != errs.KindIO || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("error %v, want Io wrapping fs.ErrExist", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("message %q does not name the existing file", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "precious" {
		t.Fatalf("existing file was changed to %q", data)
	}
}

func TestWritePEMFileIntoMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "id.pem")
	err := mustGenerate(t).WritePEMFile(path)
	if errs.KindOf(err) != errs.KindIO || !strings.Contains(err.Error(), "cannot write identity file "+path) {
		t.Fatalf("error %v, want Io naming %s", err, path)
	}
}

func TestLoadPEMFileErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.pem")
	if err := os.WriteFile(corrupt, []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.pem")
	if err := os.WriteFile(huge, bytes.Repeat([]byte{'x'}, maxIdentityFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name, path, wantInMessage string
		kind                      errs.Kind
	}{
		{"corrupt", corrupt, "certificate 1:", errs.KindTLS},
		{"too large", huge, "larger than", errs.KindIO},
		{"missing", missing, "no such file", errs.KindIO},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadPEMFile(tc.path)
			want := "cannot read identity file " + tc.path + ": "
			if errs.KindOf(err) != tc.kind || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.wantInMessage) {
				t.Fatalf("error %v, want %v starting %q and saying %q", err, tc.kind, want, tc.wantInMessage)
			}
		})
	}
	if _, err := LoadPEMFile(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file must satisfy errors.Is(err, fs.ErrNotExist): %v", err)
	}
}

func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.pem")
	first, created, err := LoadOrCreate(path, LoopbackNames())
	if err != nil || !created {
		t.Fatalf("first call: created %v, %v", created, err)
	}
	if len(first.Leaf().DNSNames) != 1 || len(first.Leaf().IPAddresses) != 2 {
		t.Fatalf("generated identity names %v %v", first.Leaf().DNSNames, first.Leaf().IPAddresses)
	}
	second, created, err := LoadOrCreate(path, LoopbackNames())
	if err != nil || created {
		t.Fatalf("second call: created %v, %v", created, err)
	}
	if second.Fingerprint() != first.Fingerprint() {
		t.Fatal("reloading gave another key; the address would change across restarts")
	}
}

func TestLoadOrCreateLeavesACorruptFileAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.pem")
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, created, err := LoadOrCreate(path, nil)
	if err == nil || created || !strings.Contains(err.Error(), path) {
		t.Fatalf("created %v, error %v: want an error naming %s", created, err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "garbage" {
		t.Fatal("the corrupt file was replaced")
	}
}

// Concurrent starters race to create the file; all must end with the one key that was written.
func TestLoadOrCreateConcurrentStartersAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.pem")
	const starters = 8
	var wg sync.WaitGroup
	fingerprints := make([]Fingerprint, starters)
	createdFlags := make([]bool, starters)
	failures := make([]error, starters)
	for i := range starters {
		wg.Go(func() {
			var id *Identity
			id, createdFlags[i], failures[i] = LoadOrCreate(path, nil)
			if id != nil {
				fingerprints[i] = id.Fingerprint()
			}
		})
	}
	wg.Wait()
	creators := 0
	for i := range starters {
		if failures[i] != nil {
			t.Fatalf("starter %d: %v", i, failures[i])
		}
		if createdFlags[i] {
			creators++
		}
		if fingerprints[i] != fingerprints[0] {
			t.Fatalf("starter %d has %s, starter 0 has %s", i, fingerprints[i], fingerprints[0])
		}
	}
	if creators != 1 {
		t.Fatalf("%d starters report creating the file, want exactly 1", creators)
	}
	onDisk, err := LoadPEMFile(path)
	if err != nil || onDisk.Fingerprint() != fingerprints[0] {
		t.Fatalf("file holds %v (%v), starters hold %s", onDisk, err, fingerprints[0])
	}
}

// writeExclusive is the fallback where hard links are unavailable; it keeps
// the same promises: mode 0600 and no overwriting.
func TestWriteExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id.pem")
	if err := writeExclusive(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o600) {
		t.Fatalf("stat: %v, %v", info, err)
	}
	if err := writeExclusive(path, []byte("second")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Fatalf("content %q after a refused write", data)
	}
}
