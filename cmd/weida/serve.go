package main

import (
	"context"
	"fmt"
	"os"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/identity"
)

// serve's options: the role, and the identity that makes the address.
var (
	optEcho = option{name: "--echo",
		help: "answer each request with its own body, streamed straight back"}
	optSink = option{name: "--sink",
		help: "write every transfer's payload to stdout, back to back with no separator " +
			"(small ones that arrive together are written together, each within 1 ms)"}
	optPub = option{name: "--pub",
		help: `publish each line of stdin as "TOPIC BODY" (split at the first space; a line ` +
			"without one is a body on the empty topic), and exit at the end of stdin"}
	optIdentity = option{name: "--identity", value: "PATH",
		help: "serve and broker: load the server identity from PATH, or create it there (owner-only) " +
			"when missing, so the printed address survives restarts; send, request and sub: present " +
			"the identity in PATH (as weida keygen writes it), so the server proves this client's key"}
	optCertOut = option{name: "--cert-out", value: "PATH",
		help: "also write the certificate (never the key) to PATH, for clients that use --ca"}
)

// role is what serve does at its path.
type role struct {
	flag option
	// claim registers the role at path and returns the loop that serves it.
	// Claiming happens before the address is printed, so a client that read
	// the address never meets an unregistered path.
	claim func(l *weida.Listener, path string, con console) (serveLoop, error)
}

// serveLoop serves a claimed path until ctx ends (SIGINT or SIGTERM) or the
// role ends of itself (--pub at the end of stdin). When ctx ends it takes
// nothing new, and lets the work in hand run until finishBy() — the
// process's drain deadline — before it returns.
type serveLoop func(ctx context.Context, finishBy func() time.Time) error

// serveRoles are the roles serve offers.
var serveRoles = []role{
	{flag: optEcho, claim: claimEcho},
	{flag: optSink, claim: claimSink},
	{flag: optPub, claim: claimPub},
}

// serveVerb serves one path and prints its dialling address.
var serveVerb = &verb{
	name:     "serve",
	synopsis: "(--echo | --sink | --pub) URL [--identity PATH] [--cert-out PATH]",
	summary:  "serve the path of the bind URL and print its dialling address on stdout",
	options:  []option{optEcho, optSink, optPub, optIdentity, optCertOut},
	check:    checkServeRole,
	run:      runServe,
}

// checkServeRole requires exactly one role.
func checkServeRole(inv *invocation) error {
	var given []option
	for _, r := range serveRoles {
		if inv.has(r.flag) {
			given = append(given, r.flag)
		}
	}
	switch len(given) {
	case 0:
		return usageErrorf(inv.verb, "serve needs a role: %s", joinNames(roleFlags()))
	case 1:
		return nil
	}
	return usageErrorf(inv.verb, "serve takes one role, not %s", joinNames(given))
}

// roleFlags are the options that choose a role.
func roleFlags() []option {
	flags := make([]option, len(serveRoles))
	for i, r := range serveRoles {
		flags[i] = r.flag
	}
	return flags
}

// chosenRole is the role checkServeRole found.
func chosenRole(inv *invocation) role {
	for _, r := range serveRoles {
		if inv.has(r.flag) {
			return r
		}
	}
	panic("serve: no role; checkServeRole lets no such command line through")
}

// runServe binds the URL, claims the path, prints the address as the one
// line serve writes to stdout before any payload, and serves until SIGINT
// or SIGTERM, which is serve's ordinary end (exit 0), or until the role
// ends of itself. The drain that follows (runVerb) is the rest of a
// graceful stop.
func runServe(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	addr, err := identity.ParseBindAddress(inv.url)
	if err != nil {
		return err
	}
	id, err := serverIdentity(inv, con)
	if err != nil {
		return err
	}
	loop, err := chosenRole(inv).claim(rt.Listener(), addr.Path, con)
	if err != nil {
		return err
	}
	binding, err := bind(rt, addr, id)
	if err != nil {
		return err
	}
	// Written before the address is printed: a client that waits for the
	// address may use the certificate at once.
	if err := writeCertificate(inv, id, con); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(con.out, binding.URL(addr.Path)); err != nil {
		return fmt.Errorf("cannot print the address: %w", err)
	}
	err = loop(ctx, inv.drainDeadline)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// serverIdentity loads or creates the --identity file, or generates a
// throwaway identity. Either names the loopback host in every spelling, so
// a --ca client can dial it by any of them (SURFACE.md §1.3).
func serverIdentity(inv *invocation, con console) (*weida.Identity, error) {
	names := identity.LoopbackNames()
	path, ok := inv.value(optIdentity)
	if !ok {
		return weida.GenerateIdentityFor(names)
	}
	id, created, err := weida.LoadOrCreateIdentity(path, names)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(con.err, "generated an identity in %s\n", path)
	}
	return id, nil
}

// bind serves the runtime's paths on addr: QUIC, or a unix socket (the
// kernel proves its peers, so no identity is used there). An in-process
// bus would be unreachable from a shell (SURFACE.md §1.5).
func bind(rt *weida.Runtime, addr weida.Address, id *weida.Identity, opts ...weida.BindOption) (*weida.Binding, error) {
	switch addr.Scheme {
	case identity.SchemeQUIC:
		return rt.Listener().BindQUIC(addr.HostPort(), id, opts...)
	case identity.SchemeUnix:
		return rt.Listener().BindUnix(addr.SocketPath)
	case identity.SchemeInproc:
		return nil, &weida.Error{Kind: weida.KindInvalidAddress,
			Msg: fmt.Sprintf("cannot serve %s: an in-process bus is unreachable from outside this process", addr)}
	}
	return nil, &weida.Error{Kind: weida.KindInvalidAddress,
		Msg: fmt.Sprintf("cannot serve %s: this build serves weida:// addresses only", addr)}
}

// writeCertificate writes the certificate chain to the --cert-out path.
// It is public (the key stays in the identity), so it gets ordinary
// permissions and replaces an older file.
func writeCertificate(inv *invocation, id *weida.Identity, con console) error {
	path, ok := inv.value(optCertOut)
	if !ok {
		return nil
	}
	if err := os.WriteFile(path, id.CertificatePEM(), 0o644); err != nil {
		return fmt.Errorf("cannot write the certificate: %w", err)
	}
	fmt.Fprintf(con.err, "wrote the certificate to %s\n", path)
	return nil
}
