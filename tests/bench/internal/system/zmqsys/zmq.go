// Package zmqsys runs the benchmark workloads on ZeroMQ (libzmq through
// the module's cgo wrapper, TCP loopback): REQ/REP for request/reply,
// PUSH/PULL for one-way messages and bulk transfers (a bulk transfer is a
// run of 64 KiB messages, ZeroMQ having no streams), PUB/SUB for fan-out.
// Each server and each client owns a context, as separate programs would;
// the subscribers of one run share a context and one polling goroutine, the
// way one ZeroMQ program serves many sockets. Socket options are libzmq's
// defaults except the fan-out's high-water marks (see publisher).
//
// libzmq calls take no Go context: a client is unblocked when the context
// it was dialled with ends (its libzmq context is shut down then).
package zmqsys

import (
	"context"
	"fmt"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// System is ZeroMQ.
type System struct{}

// Name implements system.System.
func (System) Name() string { return "ZeroMQ" }

// endpoint is where every server binds: loopback, a kernel-chosen port.
const endpoint = "tcp://127.0.0.1:*"

// node is one libzmq context with one socket.
type node struct {
	ctx  *zmq.Context
	sock *zmq.Socket
	stop func() bool // ends the watch on the dialling context
}

// newNode makes a context and a socket of type t.
func newNode(t zmq.Type) (*node, error) {
	ctx, err := zmq.NewContext()
	if err != nil {
		return nil, err
	}
	sock, err := ctx.Socket(t)
	if err != nil {
		_ = ctx.Term()
		return nil, err
	}
	return &node{ctx: ctx, sock: sock, stop: func() bool { return false }}, nil
}

// bindNode makes a node, applies configure (options must be set before
// Bind: a listener copies them) and binds it.
func bindNode(t zmq.Type, configure func(*zmq.Socket) error) (*node, string, error) {
	n, err := newNode(t)
	if err != nil {
		return nil, "", err
	}
	if err := configure(n.sock); err != nil {
		_ = n.close()
		return nil, "", err
	}
	if err := n.sock.Bind(endpoint); err != nil {
		_ = n.close()
		return nil, "", err
	}
	addr, err := n.sock.LastEndpoint()
	if err != nil {
		_ = n.close()
		return nil, "", err
	}
	return n, addr, nil
}

// dialNode makes a node, connects it to addr and ties it to ctx.
func dialNode(ctx context.Context, t zmq.Type, addr string) (*node, error) {
	n, err := newNode(t)
	if err != nil {
		return nil, err
	}
	if err := n.sock.Connect(addr); err != nil {
		_ = n.close()
		return nil, err
	}
	n.stop = context.AfterFunc(ctx, n.ctx.Shutdown)
	return n, nil
}

// close shuts the context down (unblocking its calls), then closes the
// socket and ends the context. Whoever blocked on the socket must have
// returned before the socket is closed: servers stop their loops first.
func (n *node) close() error {
	n.stop()
	n.ctx.Shutdown()
	if err := n.sock.Close(); err != nil {
		return err
	}
	return n.ctx.Term()
}

// defaults keeps libzmq's default socket options.
func defaults(*zmq.Socket) error { return nil }

// server is a bound node with its receive loop.
type server struct {
	*node
	addr  string
	loops *system.Loops
}

// serve binds a socket of type t and runs loop on it until Close.
func serve(t zmq.Type, loop func(ctx context.Context, s *zmq.Socket)) (*server, error) {
	n, addr, err := bindNode(t, defaults)
	if err != nil {
		return nil, err
	}
	s := &server{node: n, addr: addr, loops: system.NewLoops()}
	s.loops.Go(func(ctx context.Context) { loop(ctx, n.sock) })
	return s, nil
}

func (s *server) Addr() string { return s.addr }

func (s *server) Close() error {
	s.loops.Stop(s.ctx.Shutdown)
	return s.close()
}

// wrongLength is the error for a message of an unexpected size.
func wrongLength(got, want int) error {
	return fmt.Errorf("zmq: a message of %d bytes, want %d", got, want)
}
