// Package security checks weida's trust boundary end to end (issue 11
// item 5): a peer is let in only by the key it proves in the TLS handshake,
// before anything it sends is dispatched; a binding that requires client
// keys refuses anonymous clients; identity files are created owner-only
// and never overwritten; and no header field can claim an identity — the
// peer of a transfer comes from TLS alone.
package security
