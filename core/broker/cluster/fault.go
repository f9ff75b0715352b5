package cluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"
)

// FaultPlan is a fault-injecting network under one member's Raft port, for
// tests that run a cluster in one process: it can cut the member off from
// some peers (a partition, both ways), delay what it sends, and drop a
// fraction of the datagrams either way. It acts on UDP datagrams, below
// QUIC, so the Raft port sees what a real network fault would make of it
// (retransmissions, stalled streams, connections that time out). Change it
// at any time; a zero plan (or nil) changes nothing.
//
// NodeConfig.Faults applies it to a node; Wrap applies it to any socket,
// e.g. the Raft socket handed to a broker.
type FaultPlan struct {
	mu    sync.Mutex
	cut   map[netip.AddrPort]bool
	delay time.Duration
	drop  float64
	rng   *rand.Rand
}

// NewFaultPlan returns a plan that changes nothing yet; seed drives which
// datagrams Drop loses.
func NewFaultPlan(seed uint64) *FaultPlan {
	return &FaultPlan{cut: map[netip.AddrPort]bool{}, rng: rand.New(rand.NewPCG(seed, 2))}
}

// Partition cuts the member off from the peers at these Raft addresses
// ("host:port"): every datagram to or from them is lost, until Heal.
func (f *FaultPlan) Partition(peers ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range peers {
		a, err := net.ResolveUDPAddr("udp", p)
		if err != nil {
			return fmt.Errorf("fault plan: peer %s: %w", p, err)
		}
		f.cut[addrKey(a)] = true
	}
	return nil
}

// Heal ends every partition.
func (f *FaultPlan) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.cut)
}

// Delay holds every datagram the member sends for d (0: none).
func (f *FaultPlan) Delay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// Drop loses this fraction (0 to 1) of the datagrams sent and received.
func (f *FaultPlan) Drop(fraction float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drop = fraction
}

// addrKey is a UDP address as the plan compares them (an IPv4 address
// the same whether or not it comes IPv6-mapped).
func addrKey(a *net.UDPAddr) netip.AddrPort {
	ap := a.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// lose decides the fate of one datagram to or from addr.
func (f *FaultPlan) lose(addr net.Addr) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cut) > 0 {
		if u, ok := addr.(*net.UDPAddr); ok && f.cut[addrKey(u)] {
			return true
		}
	}
	return f.drop > 0 && f.rng.Float64() < f.drop
}

func (f *FaultPlan) currentDelay() time.Duration {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delay
}

// Wrap returns pc with the plan applied to what it sends and receives.
func (f *FaultPlan) Wrap(pc net.PacketConn) net.PacketConn {
	return &faultyConn{PacketConn: pc, plan: f}
}

// faultyConn is a socket whose datagrams go through a FaultPlan.
type faultyConn struct {
	net.PacketConn
	plan *FaultPlan
}

func (c *faultyConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(p)
		if err != nil || !c.plan.lose(addr) {
			return n, addr, err
		}
	}
}

func (c *faultyConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if c.plan.lose(addr) {
		return len(p), nil // gone on the way, as UDP loses it
	}
	d := c.plan.currentDelay()
	if d <= 0 {
		return c.PacketConn.WriteTo(p, addr)
	}
	held := append([]byte(nil), p...)
	time.AfterFunc(d, func() { c.PacketConn.WriteTo(held, addr) })
	return len(p), nil
}

// SetReadBuffer and SetWriteBuffer size the socket's buffers, as quic-go
// asks of any socket it is given.
func (c *faultyConn) SetReadBuffer(bytes int) error {
	if s, ok := c.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return s.SetReadBuffer(bytes)
	}
	return nil
}

// SetWriteBuffer: see SetReadBuffer.
func (c *faultyConn) SetWriteBuffer(bytes int) error {
	if s, ok := c.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return s.SetWriteBuffer(bytes)
	}
	return nil
}
