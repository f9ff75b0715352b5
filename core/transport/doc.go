// Package transport is weida's connection layer, and the only package that
// imports quic-go. It owns listeners and dialled connections, the HELLO
// exchange and negotiation (PROTOCOL.md §3, §9), the parking of streams that
// arrive before negotiation, dispatch of inbound streams by frame kind to a
// Handler, the close/stop/reset codes of §10, connection limits, and the
// transport receipt: the proof that the peer's QUIC stack acknowledged every
// byte and the FIN of a stream (receipt.go), built from quic-go's typed qlog
// events. A listener's QUIC stateless reset key derives from its identity
// (resetkey.go), so a restarted server resets its previous run's
// connections instead of leaving their clients to wait out the idle timeout.
//
// The same Conn runs over the local transports of PROTOCOL.md §12 (local.go):
// in process (inproc*.go: a bounded pipe each way per stream, no sockets)
// and AF_UNIX (unix*.go: one OS connection per stream, a control connection
// for HELLO, group tokens, parked reverse connections, kernel credentials).
// The stream types see only the halves of halves.go, which quic-go's streams
// satisfy as they are, so the QUIC path pays nothing for the others. Dial
// picks the transport by the address's scheme.
//
// Datagram flows (PROTOCOL.md §8.7-§8.8) live in flow.go and datagram.go:
// a FLOW stream per flow, a send ring that never blocks its caller, a
// drop-oldest ring per inbound flow and an early ring for datagrams that
// overtake their FLOW header. On a local transport the FLOW stream carries
// its datagrams itself as length-prefixed records (local_flow.go, §12). A
// Handler takes flows by also implementing FlowHandler.
//
// It knows nothing about patterns: what a path means is the Handler's
// business (package weida), so data flows one way — wire → transport → API.
package transport
