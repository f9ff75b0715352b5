package identity

import (
	"bytes"
	"testing"
)

func TestDeriveSecretIsPerKeyAndLabel(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	derive := func(id *Identity, label string) []byte {
		t.Helper()
		s, err := DeriveSecret(id.TLSCertificate().PrivateKey, label, 32)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 32 {
			t.Fatalf("%d bytes, want 32", len(s))
		}
		return s
	}
	first := derive(a, "one")
	if !bytes.Equal(first, derive(a, "one")) {
		t.Fatal("the same key and label gave two secrets")
	}
	if bytes.Equal(first, derive(a, "two")) {
		t.Fatal("two labels gave the same secret")
	}
	if bytes.Equal(first, derive(b, "one")) {
		t.Fatal("two keys gave the same secret")
	}
	if _, err := DeriveSecret(struct{}{}, "one", 32); err == nil {
		t.Fatal("a value that is no private key was accepted")
	}
}
