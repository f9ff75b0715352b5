// Package rawpeer is the hostile peer of weida's end-to-end tests: a bare
// quic-go client and a bare quic-go server that speak weida's ALPN and TLS
// identities but put arbitrary bytes on the wire. Nothing here checks what
// it sends; that is the point. A test builds frames (frames.go), sends them
// from a Conn (conn.go) made by Dial (toward a weida listener) or Listen +
// Accept (for a weida client to dial), and observes the victim's verdicts:
// the connection close code, the STOP_SENDING code on a stream, or what the
// victim wrote back.
package rawpeer
