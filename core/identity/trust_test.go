package identity

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrustBuilders(t *testing.T) {
	a, b := mustGenerate(t), mustGenerate(t)
	if !TrustByAddress().IsEmpty() || !(Trust{}).IsEmpty() {
		t.Fatal("TrustByAddress must be empty")
	}
	pinned := TrustPin(a.Fingerprint())
	if pinned.IsEmpty() || !pinned.pinned(a.Fingerprint()) || pinned.pinned(b.Fingerprint()) {
		t.Fatal("TrustPin pins the wrong set")
	}
	fromText, err := TrustPinString(a.Fingerprint().String())
	if err != nil || fromText.Key() != pinned.Key() {
		t.Fatalf("TrustPinString: %v, key %q vs %q", err, fromText.Key(), pinned.Key())
	}
	if _, err := TrustPinString("sha1:00"); errs.KindOf(err) != errs.KindInvalidFingerprint {
		t.Fatalf("TrustPinString(bad) = %v, want InvalidFingerprint", err)
	}
	if twice := pinned.AndPin(a.Fingerprint()); len(twice.pins) != 1 {
		t.Fatalf("AndPin does not deduplicate: %d pins", len(twice.pins))
	}
	anchored := TrustAnchor(a.Leaf())
	if anchored.IsEmpty() || anchored.pool == nil || len(anchored.AndAnchor(a.Leaf()).anchors) != 1 {
		t.Fatal("TrustAnchor/AndAnchor do not hold exactly one anchor")
	}
}

// Builders return new values; a Trust another holder keeps must never change.
func TestTrustIsImmutable(t *testing.T) {
	a, b, c := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	base := TrustPin(a.Fingerprint()).AndPin(b.Fingerprint())
	baseKey := base.Key()
	withC := base.AndPin(c.Fingerprint())
	withAnchor := base.AndAnchor(c.Leaf())
	// Appending to a shared backing array would make these two see each other's additions.
	left, right := base.AndPin(mustGenerate(t).Fingerprint()), base.AndPin(mustGenerate(t).Fingerprint())
	if base.Key() != baseKey || len(base.pins) != 2 || len(base.anchors) != 0 {
		t.Fatal("a builder modified its receiver")
	}
	if !withC.pinned(c.Fingerprint()) || withAnchor.pinned(c.Fingerprint()) {
		t.Fatal("derived trusts share state")
	}
	if left.pins[2] == right.pins[2] || left.Key() == right.Key() {
		t.Fatal("two derivations of one trust alias each other")
	}
}

func TestTrustKeyIsEqualExactlyForEqualContent(t *testing.T) {
	a, b := mustGenerate(t), mustGenerate(t)
	ca := newTestCA(t)
	ab := TrustPin(a.Fingerprint()).AndPin(b.Fingerprint()).AndAnchor(ca.cert)
	ba := TrustAnchor(ca.cert).AndPin(b.Fingerprint()).AndPin(a.Fingerprint()).AndPin(a.Fingerprint())
	if ab.Key() != ba.Key() {
		t.Fatalf("same content, different keys:\n%s\n%s", ab.Key(), ba.Key())
	}
	different := []Trust{
		TrustByAddress(),
		TrustPin(a.Fingerprint()),
		TrustPin(a.Fingerprint()).AndPin(b.Fingerprint()),
		TrustAnchor(ca.cert),
		TrustAnchor(a.Leaf()), // anchoring a's certificate is not pinning a's key
		TrustPin(a.Fingerprint()).AndAnchor(ca.cert),
	}
	keys := make([]string, len(different))
	for i, trust := range different {
		keys[i] = trust.Key()
	}
	if slices.Sort(keys); len(slices.Compact(keys)) != len(different) {
		t.Fatalf("different trusts share a key: %q", keys)
	}
	if TrustByAddress().Key() != (Trust{}).Key() {
		t.Fatal("the zero Trust and TrustByAddress differ")
	}
}

func TestTrustAnchorFile(t *testing.T) {
	ca, other := newTestCA(t), mustGenerate(t)
	// A bundle may carry keys and other blocks; only certificates count.
	bundle := writeFile(t, "bundle.pem", append(other.PEM(), certificatePEM(ca.cert)...))
	trust, err := TrustAnchorFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if len(trust.anchors) != 2 {
		t.Fatalf("%d anchors, want 2", len(trust.anchors))
	}
	again, err := trust.AndAnchorFile(bundle)
	if err != nil || again.Key() != trust.Key() {
		t.Fatalf("re-adding the same file changed the trust (%v)", err)
	}

	noCerts := writeFile(t, "key.pem", []byte("not a certificate\n"))
	missing := filepath.Join(t.TempDir(), "missing.pem")
	tests := []struct {
		name, path, wantInMessage string
		kind                      errs.Kind
	}{
		{"no certificates", noCerts, "anchor file " + noCerts + " holds no PEM CERTIFICATE block", errs.KindTLS},
		{"missing", missing, "cannot read anchor file " + missing + ": no such file", errs.KindIO},
	}
	for _, tc := range tests {
		_, err := TrustAnchorFile(tc.path)
		if errs.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.wantInMessage) {
			t.Errorf("%s: error %v, want %v saying %q", tc.name, err, tc.kind, tc.wantInMessage)
		}
	}
}
