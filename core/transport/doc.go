// Package transport is weida's QUIC layer, and the only package that imports
// quic-go. It owns listeners and dialled connections, the HELLO exchange and
// negotiation (PROTOCOL.md §3, §9), the parking of streams that arrive before
// negotiation, dispatch of inbound streams by frame kind to a Handler, the
// close/stop/reset codes of §10, connection limits, and the transport
// receipt: the proof that the peer's QUIC stack acknowledged every byte and
// the FIN of a stream (receipt.go), built from quic-go's typed qlog events.
//
// It knows nothing about patterns: what a path means is the Handler's
// business (package weida), so data flows one way — wire → transport → API.
package transport
