package security

import (
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// TestHeadersCannotClaimAnIdentity: raw clients send transfers and
// exchanges whose DATA header names another key in every way the wire
// allows — the producer key (7) set to a stranger's fingerprint or to the
// server's own — and a sequence number for good measure. The peer weida
// reports is always the key proved in the handshake (or none for an
// anonymous client), never a header's claim (PROTOCOL.md §2.2, §8.3.3).
func TestHeadersCannotClaimAnIdentity(t *testing.T) {
	s := startServer(t)
	proved, stranger := newIdentity(t), newIdentity(t)
	claims := []struct {
		name     string
		producer weida.Fingerprint
	}{
		{"a stranger's key", stranger.Fingerprint()},
		{"the server's own key", s.b.Fingerprint()},
	}
	for _, client := range []struct {
		name string
		id   *weida.Identity
	}{{"proved client", proved}, {"anonymous client", nil}} {
		for _, claim := range claims {
			for _, bidi := range []bool{false, true} {
				name := client.name + " claiming " + claim.name
				if bidi {
					name += " in an exchange"
				}
				t.Run(name, func(t *testing.T) {
					c, err := rawpeer.Dial(ctxFor(t), s.b.URL(inPath), client.id)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					h := wire.Data{Endpoint: wire.Some(inPath), Producer: wire.Some([32]byte(claim.producer)), Sequence: wire.Some[uint64](7)}
					frame := append(rawpeer.Encode(wire.KindData, &h), "claim"...)
					if err := c.Uni(rawpeer.Hello()); err != nil {
						t.Fatal(err)
					}
					if bidi {
						_, err = c.Bidi(frame, true)
					} else {
						err = c.Uni(frame)
					}
					if err != nil {
						t.Fatal(err)
					}
					fp, ok, payload := s.firstArrival(t)
					if payload != "claim" {
						t.Fatalf("dispatched %q", payload)
					}
					switch {
					case client.id == nil && ok:
						t.Fatalf("an anonymous client was given the peer %s", fp)
					case client.id != nil && (!ok || fp != client.id.Fingerprint()):
						t.Fatalf("peer %s (proved %v), want the handshake's %s", fp, ok, client.id.Fingerprint())
					}
				})
			}
		}
	}
}
