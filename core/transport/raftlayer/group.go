package raftlayer

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Group is one Raft group's stream layer: a net.Listener of the streams
// members open for it, and Dial to open one. It is what
// raft.NewNetworkTransport takes (through a one-line adapter for
// raft.ServerAddress).
type Group struct {
	node   *Node
	id     GroupID
	accept chan net.Conn
	done   chan struct{}

	mu     sync.Mutex // orders offer against shut, so no stream is left queued
	closed bool
}

// Group registers the group id on the node. Streams naming an id no group
// is registered for are reset.
func (n *Node) Group(id GroupID) (*Group, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ctx.Err() != nil {
		return nil, errClosed
	}
	if _, dup := n.groups[id]; dup {
		return nil, fmt.Errorf("raft port: group %x is registered already", id[:4])
	}
	g := &Group{node: n, id: id, accept: make(chan net.Conn, acceptBacklog), done: make(chan struct{})}
	n.groups[id] = g
	return g, nil
}

// Accept waits for a member's next stream for this group.
func (g *Group) Accept() (net.Conn, error) {
	select {
	case c := <-g.accept:
		return c, nil
	case <-g.done:
		return nil, errClosed
	}
}

// Close unregisters the group; its pending streams are closed.
func (g *Group) Close() error {
	g.node.mu.Lock()
	if g.node.groups[g.id] == g {
		delete(g.node.groups, g.id)
	}
	g.node.mu.Unlock()
	g.shut()
	return nil
}

func (g *Group) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.closed = true
	close(g.done)
	for {
		select {
		case c := <-g.accept:
			c.Close()
		default:
			return
		}
	}
}

// Addr is the node's Raft address.
func (g *Group) Addr() net.Addr { return g.node.Addr() }

// Dial opens a stream for this group to the member at address.
func (g *Group) Dial(address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(g.node.ctx, timeout)
	defer cancel()
	c, err := g.node.connTo(ctx, address)
	if err != nil {
		return nil, err
	}
	s, err := c.OpenStreamSync(ctx)
	if err != nil {
		return nil, fmt.Errorf("raft port: opening a stream to %s: %w", address, err)
	}
	pre := make([]byte, 0, streamPreambleLen)
	pre = append(append(pre, preambleVersion), g.id[:]...)
	if _, err := s.Write(pre); err != nil {
		reset(s, codeClosed)
		return nil, fmt.Errorf("raft port: writing to %s: %w", address, err)
	}
	return streamConn{Stream: s, conn: c}, nil
}

// offer queues c for Accept; false when the backlog is full or the group
// closed.
func (g *Group) offer(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	select {
	case g.accept <- c:
		return true
	default:
		return false
	}
}
