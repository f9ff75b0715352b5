package identity

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

// vectorText is PROTOCOL.md §15.4: bytes 0x00..0x1E then 0xFF.
const vectorText = "sha256:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1eff"

func vectorFingerprint() Fingerprint {
	var fp Fingerprint
	for i := range 31 {
		fp[i] = byte(i)
	}
	fp[31] = 0xff
	return fp
}

func TestParseFingerprintVectors(t *testing.T) {
	digits := strings.TrimPrefix(vectorText, "sha256:")
	valid := []struct{ name, text string }{
		{"canonical lowercase", vectorText},
		{"uppercase digits", "sha256:" + strings.ToUpper(digits)},
		{"mixed-case digits", "sha256:" + strings.ToUpper(digits[:32]) + digits[32:]},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			fp, err := ParseFingerprint(tc.text)
			if err != nil {
				t.Fatalf("ParseFingerprint: %v", err)
			}
			if fp != vectorFingerprint() {
				t.Fatalf("parsed % x", fp[:])
			}
		})
	}
	if got := vectorFingerprint().String(); got != vectorText {
		t.Fatalf("String() = %q, want %q", got, vectorText)
	}
}

func TestParseFingerprintRejects(t *testing.T) {
	digits := strings.TrimPrefix(vectorText, "sha256:")
	tests := []struct{ name, text, wantInMessage string }{
		{"uppercase prefix", "SHA256:" + digits, `lowercase prefix "sha256:"`},
		{"bare hex", digits, `lowercase prefix "sha256:"`},
		{"other algorithm", "sha1:" + digits[:40], `lowercase prefix "sha256:"`},
		{"63 digits", "sha256:" + digits[:63], "not 63"},
		{"65 digits", "sha256:" + digits + "0", "not 65"},
		{"empty", "", `lowercase prefix "sha256:"`},
		{"prefix only", "sha256:", "not 0"},
		{"g digit", "sha256:g" + digits[1:], "'g' at offset 7 is not a hex digit"},
		{"space inside", "sha256:" + digits[:10] + " " + digits[11:], "' ' at offset 17"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFingerprint(tc.text)
			if errs.KindOf(err) != errs.KindInvalidFingerprint {
				t.Fatalf("error %v, want kind InvalidFingerprint", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.wantInMessage) || !strings.HasPrefix(msg, "invalid fingerprint ") {
				t.Fatalf("message %q does not say %q", msg, tc.wantInMessage)
			}
		})
	}
}

// The fingerprint is SHA-256 over the DER SubjectPublicKeyInfo, the value
// `openssl pkey -pubin -outform der | sha256sum` gives, not over the certificate.
func TestFingerprintIsSHA256OfSubjectPublicKeyInfo(t *testing.T) {
	id := mustGenerate(t)
	spki, err := x509.MarshalPKIXPublicKey(id.Leaf().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	want := Fingerprint(sha256.Sum256(spki))
	if got := FingerprintOf(id.Leaf()); got != want {
		t.Errorf("FingerprintOf = %s, want %s", got, want)
	}
	if got := FingerprintOfSPKI(spki); got != want {
		t.Errorf("FingerprintOfSPKI = %s, want %s", got, want)
	}
	if got := id.Fingerprint(); got != want {
		t.Errorf("Identity.Fingerprint = %s, want %s", got, want)
	}
	if Fingerprint(sha256.Sum256(id.Leaf().Raw)) == want {
		t.Error("fingerprint equals the certificate hash; it must hash the key only")
	}
}

func TestPeerFingerprint(t *testing.T) {
	id := mustGenerate(t)
	if _, ok := PeerFingerprint(tls.ConnectionState{}); ok {
		t.Error("an anonymous peer must have no fingerprint")
	}
	cs := tls.ConnectionState{PeerCertificates: []*x509.Certificate{id.Leaf(), mustGenerate(t).Leaf()}}
	if fp, ok := PeerFingerprint(cs); !ok || fp != id.Fingerprint() {
		t.Errorf("PeerFingerprint = %s, %v; want the leaf's %s", fp, ok, id.Fingerprint())
	}
}
