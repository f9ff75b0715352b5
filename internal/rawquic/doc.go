// Package rawquic is the baseline weida's benchmarks measure against: the
// same stream work done directly on quic-go, with the same windows, stream
// limits and TLS 1.3, but no weida framing, no HELLO, no routing and (unless
// asked for) no qlog tracer.
//
// A Pair is one established loopback connection seen from both ends. Its
// server side runs one of two loops — ServeEcho answers every bidirectional
// stream with a fixed reply, ServeDrain reads every unidirectional stream to
// its end — and its client side issues the matching operations, Exchange and
// Push. Close ends the connection and waits for the server loop.
package rawquic
