package transport

import (
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// Limits is the per-connection profile (PROTOCOL.md §13). Zero fields take
// the spec's defaults, so the zero value is the documented default profile.
type Limits struct {
	MaxHeaderBytes           uint64        // largest header accepted; default 16384
	MaxConcurrentUniStreams  int64         // QUIC uni stream credit; default 2048
	MaxConcurrentBidiStreams int64         // QUIC bidi stream credit (live exchanges); default 1024
	StreamReceiveWindow      uint64        // per-stream window; default 1 MiB
	ConnectionReceiveWindow  uint64        // per-connection window; default 16 MiB
	IdleTimeout              time.Duration // default 30 s
	KeepAlive                time.Duration // dialling side only; default 10 s
	HelloTimeout             time.Duration // until the peer's HELLO is processed; default 10 s
	HandshakeTimeout         time.Duration // QUIC handshake idle timeout; default 5 s
}

// Defaults of PROTOCOL.md §13.
const (
	DefaultMaxUniStreams         = 2048
	DefaultMaxBidiStreams        = 1024
	DefaultStreamWindow          = 1 << 20
	DefaultConnectionWindow      = 16 << 20
	DefaultIdleTimeout           = 30 * time.Second
	DefaultKeepAlive             = 10 * time.Second
	DefaultHelloTimeout          = 10 * time.Second
	DefaultHandshakeTimeout      = 5 * time.Second
	DefaultMaxConnections        = 1024
	DefaultMaxConnectionsPerPeer = 64
)

// withDefaults returns l with every zero field replaced by its default.
func (l Limits) withDefaults() Limits {
	setDefault(&l.MaxHeaderBytes, wire.DefaultMaxHeaderBytes)
	setDefault(&l.MaxConcurrentUniStreams, DefaultMaxUniStreams)
	setDefault(&l.MaxConcurrentBidiStreams, DefaultMaxBidiStreams)
	setDefault(&l.StreamReceiveWindow, DefaultStreamWindow)
	setDefault(&l.ConnectionReceiveWindow, DefaultConnectionWindow)
	setDefault(&l.IdleTimeout, DefaultIdleTimeout)
	setDefault(&l.KeepAlive, DefaultKeepAlive)
	setDefault(&l.HelloTimeout, DefaultHelloTimeout)
	setDefault(&l.HandshakeTimeout, DefaultHandshakeTimeout)
	return l
}

func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}

// Config is what a listener or dialler needs beyond TLS.
type Config struct {
	Limits Limits
	// Offered and Required are this side's guarantee sets for HELLO keys 5/6.
	// The zero value is not core; use wire.CoreGuarantees() (NewConfig does).
	Offered, Required wire.GuaranteeSet
	// MaxConnections bounds accepted connections per listener (default 1024).
	MaxConnections int
	// MaxConnectionsPerPeer bounds accepted connections per proved
	// fingerprint per listener (default 64); anonymous ones are not counted.
	MaxConnectionsPerPeer int
	// DatagramReceiveBytes is datagram_receive_bytes: 0 turns datagram flows
	// off (no capability 1 in HELLO, no QUIC datagram parameter);
	// DefaultDatagramReceiveBytes (64 KiB) is the documented "on" value.
	DatagramReceiveBytes int
	// PathReports lists capability 2 in HELLO: with a peer that lists it
	// too, each side sends the other its path records (pathreport.go).
	PathReports bool
}

// NewConfig returns the default configuration with core guarantee sets.
func NewConfig() Config {
	return Config{Offered: wire.CoreGuarantees(), Required: wire.CoreGuarantees()}
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.withDefaults()
	setDefault(&c.MaxConnections, DefaultMaxConnections)
	setDefault(&c.MaxConnectionsPerPeer, DefaultMaxConnectionsPerPeer)
	return c
}

// hello is the HELLO this configuration sends.
func (c Config) hello() wire.Hello {
	h := wire.DefaultHello()
	h.MaxHeaderBytes = c.Limits.MaxHeaderBytes
	h.MaxTransfers = uint64(c.Limits.MaxConcurrentUniStreams)
	h.Offered = c.Offered
	h.Required = c.Required
	if c.DatagramReceiveBytes > 0 {
		h.Capabilities = append(h.Capabilities, wire.CapabilityDatagram)
	}
	if c.PathReports {
		h.Capabilities = append(h.Capabilities, wire.CapabilityPathReport)
	}
	return h
}

// quicConfig maps the limits onto quic-go. Initial and maximum windows are
// equal so the spec's bounds hold exactly (quic-go would otherwise auto-tune).
func (c Config) quicConfig(dialling bool) *quic.Config {
	l := c.Limits
	qc := &quic.Config{
		HandshakeIdleTimeout:           l.HandshakeTimeout,
		MaxIdleTimeout:                 l.IdleTimeout,
		InitialStreamReceiveWindow:     l.StreamReceiveWindow,
		MaxStreamReceiveWindow:         l.StreamReceiveWindow,
		InitialConnectionReceiveWindow: l.ConnectionReceiveWindow,
		MaxConnectionReceiveWindow:     l.ConnectionReceiveWindow,
		MaxIncomingStreams:             l.MaxConcurrentBidiStreams,
		MaxIncomingUniStreams:          l.MaxConcurrentUniStreams,
		EnableDatagrams:                c.DatagramReceiveBytes > 0,
		// A peer's stream counts against its budget until this side
		// releases it: at once on accepting it, except a one-way transfer
		// read ahead, whose FIN may be in hand before anyone read it
		// (uniahead.go).
		RequireStreamCreditRelease: true,
	}
	if dialling {
		qc.KeepAlivePeriod = l.KeepAlive
	}
	return qc
}
