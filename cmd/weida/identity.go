package main

import (
	"context"
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// keygenVerb writes a new identity for a client (or a server) to present.
var keygenVerb = &verb{
	name:     "keygen",
	synopsis: "PATH",
	summary: "write a new identity (key and certificate, PEM) to PATH, readable by its owner only, " +
		"and print its fingerprint on stdout: the line a broker's key file or permissions list",
	operand: "PATH",
	run:     runKeygen,
}

// runKeygen never replaces a file: a key already in use must not be lost
// to a typo.
func runKeygen(_ context.Context, _ *weida.Runtime, inv *invocation, con console) error {
	id, err := weida.GenerateIdentity()
	if err != nil {
		return err
	}
	if err := id.WritePEMFile(inv.url); err != nil {
		return fmt.Errorf("cannot write the identity: %w", err)
	}
	if _, err := fmt.Fprintln(con.out, id.Fingerprint()); err != nil {
		return fmt.Errorf("cannot print the fingerprint: %w", err)
	}
	return nil
}

// dialSetup is what a dialling verb needs to connect: the trust it
// verifies the server under (--ca, else the URL's key) and, with
// --identity, the key it presents, which the server proves and may
// authorise on.
func dialSetup(inv *invocation) (weida.Trust, []weida.EndpointOption, error) {
	trust, err := dialTrust(inv)
	if err != nil {
		return trust, nil, err
	}
	path, ok := inv.value(optIdentity)
	if !ok {
		return trust, nil, nil
	}
	id, err := weida.LoadIdentity(path)
	if err != nil {
		return trust, nil, fmt.Errorf("cannot load the client identity: %w", err)
	}
	return trust, []weida.EndpointOption{weida.WithClientIdentity(id)}, nil
}
