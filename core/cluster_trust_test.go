package weida_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
)

func writeTrustFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "members.keys")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrustPinFileTrustsEveryListedMember(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 2)
	b.leads.Store(true)
	trust, err := weida.TrustPinFile(writeTrustFile(t, "# the members of weida cluster 0123\n"+
		a.b.Fingerprint().String()+"  # 127.0.0.1:1\n\n"+b.b.Fingerprint().String()+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := requester(t, trust, a.url)
	if _, err := r.Request(ctxFor(t), []byte("job"), 1024); err != nil || b.served.Load() != 1 {
		t.Fatalf("request through the trust file: %v, leader served %d", err, b.served.Load())
	}
}

func TestTrustPinFileRefusals(t *testing.T) {
	for _, v := range []struct {
		text string
		kind error
		want string
	}{
		{"# nothing\n\n", weida.ErrRuntime, "lists no key"},
		{"sha256:00\n", weida.ErrInvalidFingerprint, "line 1"},
		{"\n\nnot a key # comment\n", weida.ErrInvalidFingerprint, "line 3"},
	} {
		_, err := weida.TrustPinFile(writeTrustFile(t, v.text))
		if !errors.Is(err, v.kind) || !strings.Contains(err.Error(), v.want) {
			t.Errorf("%q: %v, want %v naming %q", v.text, err, v.kind, v.want)
		}
	}
	big := strings.Repeat("#", 1<<20+1)
	if _, err := weida.TrustPinFile(writeTrustFile(t, big)); !errors.Is(err, weida.ErrIO) {
		t.Errorf("a file past 1 MiB: %v, want Io", err)
	}
	if _, err := weida.TrustPinFile(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, weida.ErrIO) {
		t.Errorf("an absent file: %v, want Io", err)
	}
}
