package identity

import (
	"strings"
	"testing"
)

// A server built once with a PinSet judges each handshake by the set as it
// stands then: a key added later is admitted, a key removed is refused.
func TestPinSetIsReadAtEachHandshake(t *testing.T) {
	server, alice, bob := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	set := NewPinSet(alice.Fingerprint())
	serverConfig := mustServerConfig(t, server, ClientTrusted, TrustByAddress().AndPinSet(set))
	handshake := func(client *Identity) handshakeResult {
		clientConfig, _ := mustClientConfig(t, dialAddress(t, server, "h"), TrustByAddress(), client)
		return runHandshake(t, clientConfig, serverConfig)
	}
	if res := handshake(alice); res.serverErr != nil {
		t.Fatalf("alice is in the set but was refused: %v", res.serverErr)
	}
	if res := handshake(bob); res.serverErr == nil || !strings.Contains(res.serverErr.Error(), "not among the 1 pinned keys") {
		t.Fatalf("bob is not in the set: server error %v", res.serverErr)
	}
	set.Replace([]Fingerprint{bob.Fingerprint()})
	if res := handshake(bob); res.serverErr != nil {
		t.Fatalf("bob was added but was refused: %v", res.serverErr)
	}
	if res := handshake(alice); res.serverErr == nil {
		t.Fatal("alice was removed but was admitted")
	}
}

func TestTrustWithPinSet(t *testing.T) {
	a := mustGenerate(t)
	set := NewPinSet()
	withSet := TrustByAddress().AndPinSet(set)
	if withSet.IsEmpty() {
		t.Fatal("a Trust holding a pin set must not be empty: the set may be filled later")
	}
	if withSet.pinned(a.Fingerprint()) {
		t.Fatal("an empty set pins nothing")
	}
	set.Replace([]Fingerprint{a.Fingerprint()})
	if !withSet.pinned(a.Fingerprint()) || set.Len() != 1 {
		t.Fatal("the Trust does not follow its set")
	}
	other := TrustByAddress().AndPinSet(NewPinSet(a.Fingerprint()))
	if other.Key() == withSet.Key() {
		t.Fatal("two sets with the same content are still two sets: their Keys must differ")
	}
	if withSet.AndPinSet(set).Key() != withSet.Key() {
		t.Fatal("adding the same set twice changed the Key")
	}
}
