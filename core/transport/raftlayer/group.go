package raftlayer

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
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
	// fetch serves the group's fetch streams (nil: they are reset).
	fetch func(*Stream)
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

// Dial opens a Raft stream for this group to the member at address.
func (g *Group) Dial(address string, timeout time.Duration) (net.Conn, error) {
	s, err := g.dial(KindRaft, address, timeout)
	if err != nil {
		return nil, err
	}
	return s.streamConn, nil
}

// DialFetch opens a fetch stream for this group to the member at address.
func (g *Group) DialFetch(address string, timeout time.Duration) (*Stream, error) {
	return g.dial(KindFetch, address, timeout)
}

func (g *Group) dial(kind StreamKind, address string, timeout time.Duration) (*Stream, error) {
	ctx, cancel := context.WithTimeout(g.node.ctx, timeout)
	defer cancel()
	var c *quic.Conn
	var s *quic.Stream
	for attempt := 0; ; attempt++ {
		var err error
		if c, err = g.node.connTo(ctx, address); err != nil {
			return nil, err
		}
		if s, err = c.OpenStreamSync(ctx); err == nil {
			break
		}
		// A connection that ended a moment ago may still be the one
		// connTo knows: forget it and dial afresh, once.
		if attempt > 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("raft port: opening a stream to %s: %w", address, err)
		}
		g.node.forget(c)
	}
	pre := make([]byte, 0, streamPreambleLen)
	pre = append(append(pre, byte(kind)), g.id[:]...)
	if _, err := s.Write(pre); err != nil {
		reset(s, codeClosed)
		return nil, fmt.Errorf("raft port: writing to %s: %w", address, err)
	}
	return &Stream{streamConn: streamConn{Stream: s, conn: c}, peer: g.node.cfg.Members[address]}, nil
}

// ServeFetch has h serve every fetch stream members open for this group,
// each on its own goroutine; the stream is h's to close. Before it is
// called, fetch streams are reset.
func (g *Group) ServeFetch(h func(*Stream)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fetch = h
}

func (g *Group) fetchHandler() func(*Stream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	return g.fetch
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
