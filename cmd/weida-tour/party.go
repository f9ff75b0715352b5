package main

import (
	"fmt"
	"regexp"

	weida "github.com/weida-go/weida/core"
)

// party is one participant: its own runtime, as a separate process would
// have, and a QUIC binding on loopback when it serves a path.
type party struct {
	name    string
	rt      *weida.Runtime
	binding *weida.Binding // nil for a party that only dials
}

// newParty starts a runtime that only dials.
func newParty(name string) (*party, error) {
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &party{name: name, rt: rt}, nil
}

// newServingParty starts a runtime bound to a fresh loopback port under a
// fresh identity.
func newServingParty(name string) (*party, error) {
	p, err := newParty(name)
	if err != nil {
		return nil, err
	}
	id, err := weida.GenerateIdentity()
	if err == nil {
		p.binding, err = p.rt.Listener().BindQUIC("127.0.0.1:0", id)
	}
	if err != nil {
		p.rt.Shutdown()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// close ends the party's runtime.
func (p *party) close() { p.rt.Shutdown() }

// closeAll ends every party's runtime.
func closeAll(parties []*party) {
	for _, p := range parties {
		p.close()
	}
}

var fingerprintHex = regexp.MustCompile(`sha256:([0-9a-f]{8})[0-9a-f]{48}([0-9a-f]{8})`)

// short elides the middle of the fingerprint in an address, for reading.
func short(url string) string {
	return fingerprintHex.ReplaceAllString(url, "sha256:$1…$2")
}
