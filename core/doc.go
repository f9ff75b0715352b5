// Package weida is a QUIC-native messaging library: every message is a QUIC
// stream, so a 40-byte message and a 40-GB one share one set of semantics and
// neither has to sit in memory whole.
//
// A Runtime owns connections. A Listener is a namespace of endpoint paths
// served on one or more bindings (BindQUIC); a Peer dials paths. At the
// lowest layer (L0) a Peer opens one-way transfers (Open) and exchanges
// (OpenBi), and an Acceptor registered at a path accepts them.
//
// Peers are identified by the SHA-256 fingerprint of their public key, not by
// a CA: a server prints an address naming its key
// (weida://sha256:…@host:port/path) and a client that dials that address
// trusts exactly that key (TrustByAddress). Any other key fails with an
// *Error of kind Untrusted naming the key that answered.
//
// Outcomes are honest. Finish returns a Delivery whose Delivered resolves
// only when the peer's QUIC stack acknowledged every byte and the FIN (the
// transport receipt) — never on a timer. A connection lost after the FIN is
// Indeterminate, never a definite failure; refusals are typed (Rejected,
// UnknownEndpoint, Unsupported). Every error is an *Error with a Kind;
// errors.Is(err, weida.ErrRejected) tests a kind.
//
// Every blocking call takes a context.Context; cancelling it resets the
// streams the call owns, so the peer learns.
package weida
