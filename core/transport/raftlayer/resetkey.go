package raftlayer

import (
	"fmt"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// resetKeyLabel is the HKDF info of the Raft port's stateless reset key.
// It is not the client port's label: one port must never compute the
// reset tokens of the other's connections (RFC 9000 §10.3.2), although
// both belong to the same key.
const resetKeyLabel = "weida raft stateless reset key v1"

// statelessResetKey derives the Raft port's QUIC stateless reset key from
// the member's private key: HKDF-SHA-256 over its PKCS #8 encoding. A
// member killed and started again on the same address with the same key
// then resets its peers' connections of the previous run at their next
// packet. Without it those connections stay open until the idle timeout
// (30 s) and every Raft RPC sent on them waits out its own timeout (10 s):
// the restarted member hears nothing, and a new leader that needs its vote
// or its acknowledgement waits with it.
func statelessResetKey(id *identity.Identity) (*quic.StatelessResetKey, error) {
	var key quic.StatelessResetKey
	derived, err := identity.DeriveSecret(id.TLSCertificate().PrivateKey, resetKeyLabel, len(key))
	if err != nil {
		return nil, fmt.Errorf("raft port: stateless reset key: %w", err)
	}
	copy(key[:], derived)
	return &key, nil
}
