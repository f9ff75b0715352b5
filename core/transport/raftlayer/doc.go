// Package raftlayer carries a replicated broker's Raft traffic over QUIC:
// one UDP port per node, ALPN weida-raft/0, TLS 1.3 with both sides
// proving member keys, one connection per node pair for every Raft group.
//
// It is the stream layer under hashicorp/raft's NetworkTransport (a
// net.Listener with a Dial) without importing it: each Group is a
// listener of its own over the node's shared connections, and each stream
// starts with its kind (one byte) and the group's 32-byte id so one port
// serves every group. A KindRaft stream goes to the group's Accept; a
// KindFetch stream (data kept beside the log, such as a replicated
// queue's message bodies) to the group's fetch handler.
//
// When two nodes connect, the dialler opens a hello stream and both send
// the digest of the cluster file they read; a node that read another file
// is refused with both digests named, before any group stream is served.
package raftlayer
