// Package udpproxy is a loopback UDP relay for tests: it sits between one
// QUIC client and a server and can drop, delay, duplicate, reorder or hold
// packets in each direction, with a separate loss model for the handshake,
// so tests can observe what really crosses a bad network (receipts under
// loss, acknowledgements held back, connections set up through heavy loss).
//
// It lives at the module root so both core's package tests and the
// end-to-end tests under tests/ can use it.
package udpproxy

import (
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Direction is the way a packet travels through the proxy.
type Direction int

// The two directions.
const (
	ToServer Direction = iota
	ToClient
)

// Policy decides the fate of each packet in one direction.
type Policy struct {
	DropRate      float64       // probability a packet is dropped
	DuplicateRate float64       // probability a packet is sent twice
	Delay         time.Duration // fixed extra latency (reorders nothing by itself)
	Jitter        time.Duration // random extra latency in [0, Jitter): reorders
}

// Stats counts what happened to the datagrams of one direction.
type Stats struct {
	Received         int // datagrams that arrived at the proxy
	Dropped          int // dropped by the policy, handshake drops included
	HandshakeDropped int // dropped while carrying a handshake (long-header) packet
	Duplicated       int // sent twice
}

// Proxy relays datagrams between the first client that writes to it and a
// fixed server address.
type Proxy struct {
	conn   *net.UDPConn
	server *net.UDPAddr

	mu        sync.Mutex
	client    *net.UDPAddr
	policy    [2]Policy
	handshake [2]*Policy // when set, replaces policy for handshake datagrams
	hold      [2]bool
	held      [2][][]byte
	stats     [2]Stats
	rng       *rand.Rand
	done      chan struct{}
	wg        sync.WaitGroup
}

// New starts a proxy on 127.0.0.1 in front of server. The seed fixes the
// sequence of random decisions (not the timing of the packets they meet).
func New(server *net.UDPAddr, seed uint64) (*Proxy, error) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	p := &Proxy{conn: conn, server: server, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), done: make(chan struct{})}
	p.wg.Add(1)
	go p.run()
	return p, nil
}

// Addr is where clients should send.
func (p *Proxy) Addr() *net.UDPAddr { return p.conn.LocalAddr().(*net.UDPAddr) }

// SetPolicy sets the loss model of one direction.
func (p *Proxy) SetPolicy(d Direction, pol Policy) {
	p.mu.Lock()
	p.policy[d] = pol
	p.mu.Unlock()
}

// SetHandshakePolicy sets the loss model for the handshake datagrams of one
// direction, in place of the SetPolicy one. A handshake datagram is one
// whose first packet has a QUIC long header (Initial, 0-RTT, Handshake,
// Retry: RFC 9000 §17.2), which is what an observer on the path can tell
// apart; 1-RTT packets coalesced behind it share its fate.
func (p *Proxy) SetHandshakePolicy(d Direction, pol Policy) {
	p.mu.Lock()
	p.handshake[d] = &pol
	p.mu.Unlock()
}

// Hold queues every packet of direction d instead of sending it, until Release.
func (p *Proxy) Hold(d Direction) {
	p.mu.Lock()
	p.hold[d] = true
	p.mu.Unlock()
}

// Release sends what was held in direction d, in order, and stops holding.
func (p *Proxy) Release(d Direction) {
	p.mu.Lock()
	p.hold[d] = false
	held := p.held[d]
	p.held[d] = nil
	dst := p.dest(d)
	p.mu.Unlock()
	for _, b := range held {
		_, _ = p.conn.WriteToUDP(b, dst)
	}
}

// Held counts packets currently held in direction d.
func (p *Proxy) Held(d Direction) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held[d])
}

// Dropped counts packets dropped in direction d.
func (p *Proxy) Dropped(d Direction) int { return p.Stats(d).Dropped }

// Stats returns the counters of direction d.
func (p *Proxy) Stats(d Direction) Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats[d]
}

// Close stops the proxy.
func (p *Proxy) Close() {
	close(p.done)
	_ = p.conn.Close()
	p.wg.Wait()
}

func (p *Proxy) dest(d Direction) *net.UDPAddr {
	if d == ToServer {
		return p.server
	}
	return p.client
}

// isHandshake reports whether a datagram opens with a long-header packet:
// the header form bit (0x80) of the first byte is set.
func isHandshake(datagram []byte) bool { return len(datagram) > 0 && datagram[0]&0x80 != 0 }

func (p *Proxy) run() {
	defer p.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := p.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		pkt := append([]byte(nil), buf[:n]...)
		p.relay(pkt, from)
	}
}

// relay applies the direction's policy to one datagram and sends what survives.
func (p *Proxy) relay(pkt []byte, from *net.UDPAddr) {
	p.mu.Lock()
	d := ToServer
	if from.IP.Equal(p.server.IP) && from.Port == p.server.Port {
		d = ToClient
	} else if p.client == nil {
		p.client = from
	}
	dst := p.dest(d)
	if dst == nil {
		p.mu.Unlock()
		return
	}
	st := &p.stats[d]
	st.Received++
	if p.hold[d] {
		p.held[d] = append(p.held[d], pkt)
		p.mu.Unlock()
		return
	}
	pol, handshake := p.policy[d], false
	if hs := p.handshake[d]; hs != nil && isHandshake(pkt) {
		pol, handshake = *hs, true
	}
	if p.rng.Float64() < pol.DropRate {
		st.Dropped++
		if handshake {
			st.HandshakeDropped++
		}
		p.mu.Unlock()
		return
	}
	copies := 1
	if p.rng.Float64() < pol.DuplicateRate {
		copies = 2
		st.Duplicated++
	}
	delay := pol.Delay
	if pol.Jitter > 0 {
		delay += time.Duration(p.rng.Int64N(int64(pol.Jitter)))
	}
	p.mu.Unlock()
	for range copies {
		p.send(pkt, dst, delay)
	}
}

func (p *Proxy) send(pkt []byte, dst *net.UDPAddr, delay time.Duration) {
	if delay <= 0 {
		_, _ = p.conn.WriteToUDP(pkt, dst)
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			_, _ = p.conn.WriteToUDP(pkt, dst)
		case <-p.done:
		}
	}()
}
