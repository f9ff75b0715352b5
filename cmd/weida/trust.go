package main

import (
	"errors"

	weida "github.com/weida-go/weida/core"
)

// The dialling verbs' trust options.
var (
	optCA = option{name: "--ca", value: "PATH",
		help: "trust the CA certificate(s) in PATH instead of the key named in the URL; " +
			"a URL without a key is then checked against the certificate's names"}
	optTrust = option{name: "--trust", value: "FILE",
		help: "trust the keys listed in FILE, one fingerprint a line (a cluster's members, " +
			"as broker --trust-out writes them): a URL without a key may then name any member, " +
			"and request follows a member's redirect to the leader"}
)

// dialTrust is the trust a dialling verb verifies the server under: the
// keys of --trust and the anchors of --ca, both when both are given, else
// only what the URL names.
func dialTrust(inv *invocation) (weida.Trust, error) {
	trust := weida.TrustByAddress()
	if path, ok := inv.value(optTrust); ok {
		pins, err := weida.TrustPinFile(path)
		if err != nil {
			return trust, err
		}
		trust = pins
	}
	if path, ok := inv.value(optCA); ok {
		return trust.AndAnchorFile(path)
	}
	return trust, nil
}

// leaderToFollow returns where to send a request again after err: the
// leader a cluster member's NOT_LEADER refusal names, without the key the
// refusal names, so that the handshake judges the leader by the user's
// trust and not by the member's word. Under the URL's key alone (no
// --trust, no --ca) no other key could be believed, and nothing is
// followed: the refusal, naming the leader, is the answer.
func leaderToFollow(err error, trust weida.Trust) (string, bool) {
	var refusal *weida.NotLeaderError
	if trust.IsEmpty() || !errors.As(err, &refusal) || refusal.Leader == "" {
		return "", false
	}
	leader, parseErr := weida.ParseAddress(refusal.Leader)
	if parseErr != nil {
		return "", false
	}
	leader.HasFingerprint = false
	return leader.String(), true
}
