package raftlayer

import (
	"errors"
	"strings"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// shutdownReason is the reason phrase of a connection a node closes
// because it is shutting down.
const shutdownReason = "node shutting down"

// PeerShutDown reports whether err is a member closing the connection
// because it is shutting down in order: the QUIC error itself, or an
// error that carries only its text (hashicorp/raft flattens the errors of
// its RPCs).
func PeerShutDown(err error) bool {
	var ae *quic.ApplicationError
	if errors.As(err, &ae) {
		return ae.Remote && ae.ErrorCode == closeShutdown
	}
	return err != nil && strings.Contains(err.Error(), "(remote): "+shutdownReason)
}

// Stopped reports whether the member with key closed its latest
// connection to this node because it was shutting down, and has not
// connected since: a member stopped in order, as far as this node knows.
func (n *Node) Stopped(key identity.Fingerprint) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stopped[key]
}

// Connected reports whether this node holds a live connection to the
// member with key now.
func (n *Node) Connected(key identity.Fingerprint) bool {
	n.mu.Lock()
	c := n.conns[key]
	n.mu.Unlock()
	return c != nil && c.Context().Err() == nil
}
