package weida

import (
	"log/slog"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/transport"
)

// Limits is the per-connection profile (PROTOCOL.md §13). The zero value is
// the spec's default for every field.
type Limits = transport.Limits

// GuaranteeSet is one level per guarantee dimension; the zero value is core.
type GuaranteeSet = guarantee.Set

// Config configures a Runtime. The zero value is the documented default.
type Config struct {
	// Limits is the per-connection profile; zero fields are the spec defaults
	// (16 KiB headers, 2048 uni / 1024 bidi streams, 1 MiB / 16 MiB windows,
	// 30 s idle, 10 s keep-alive, 10 s hello timeout).
	Limits Limits
	// Guarantees is required of every peer, on every connection, and
	// offered too: a HELLO may not require more than it offers (SEMANTICS.md
	// §3.3). The zero value is core. Levels this runtime cannot honour are
	// refused by NewRuntime, never silently weakened; it honours PerProducer
	// ordering (detect or reassemble) and Bounded deduplication beyond core.
	// A peer that does not offer them fails the handshake.
	//
	// An acknowledgement above TransportReceipt (Accepted, Stored) is the
	// peer's to honour: a client requires it of a broker. Since the HELLO
	// then offers it as well, which such a client could not keep towards a
	// dialler, a runtime that requires it and serves no queues only dials:
	// its Listener refuses to bind.
	Guarantees GuaranteeSet
	// Offer is what the runtime offers on every connection when it is more
	// than it requires; the zero value offers exactly Guarantees. It must
	// reach Guarantees in every dimension. Beyond Guarantees it may raise
	// the acknowledgement to Accepted or Stored only with ServesQueues.
	Offer GuaranteeSet
	// ServesQueues says the runtime's endpoints are a broker's queues, which
	// confirm what they admit at Accepted, or at Stored with their
	// durability; only such a runtime may offer those levels, and it
	// requires core acknowledgement of its peers. Set by programs that embed
	// core/broker, through broker.RuntimeConfig, which also sets Offer to
	// the level every one of its queues reaches. NewRuntime cannot check the
	// claim; broker.New refuses a runtime whose offer its queues do not
	// reach. Other endpoints on such a runtime would be covered by the same
	// offer, so give them a runtime of their own.
	ServesQueues bool
	// MaxConnections bounds accepted connections per binding (default 1024).
	MaxConnections int
	// MaxConnectionsPerPeer bounds accepted connections per proved key per
	// binding (default 64); anonymous connections are not counted.
	MaxConnectionsPerPeer int
	// EndpointQueue is the accept-queue depth per path (default 256). When it
	// is full the path stops reading and QUIC flow control pushes back.
	EndpointQueue int
	// SubscriberBufferBytes bounds the payload bytes queued per subscriber or
	// bus member before a copy is dropped (default 8 MiB); a publish or bus
	// send larger than it fails with LimitExceeded.
	SubscriberBufferBytes int64
	// Reconnect is how dialling endpoints redial a lost connection; the zero
	// value backs off from 100 ms to 30 s with jitter and never gives up.
	Reconnect ReconnectPolicy
	// SendTimeout bounds how long an open or send waits for a live
	// connection while every slot is down; 0 waits as long as the caller's
	// context allows. On expiry the error is Expired carrying the last loss cause.
	SendTimeout time.Duration
	// OutboxMessages and OutboxBytes bound the per-endpoint outbox that holds
	// sends made while no connection is live (defaults 1000 and 8 MiB).
	OutboxMessages int
	OutboxBytes    int64
	// OutboxFull is what a send does when the outbox is at a bound (default Block).
	OutboxFull OutboxFullPolicy
	// Datagrams turns on datagram flows (Peer.OpenFlow, Radio.Datagram)
	// with a 64 KiB receive budget per connection. Both ends need it: on a
	// connection where either side left it off, opening a flow fails with
	// DatagramsUnavailable (never replaced by a stream), and a payload over
	// the connection's datagram size fails with TooLarge (see TooLargeMax).
	Datagrams bool
	// PathReports makes each QUIC connection exchange path reports with a
	// peer that enables them too (PROTOCOL.md §8.9), so ConnectionStats
	// shows the peer's view (Remote). Local transports never exchange them.
	PathReports bool
	// Logger receives the runtime's log lines (log/slog): connections
	// opened and closed at Info, failed negotiations at Warn naming the
	// dimension, refused transfers at Debug (at most ten a second). Nothing
	// is logged per message at Info or above. nil is silent.
	Logger *slog.Logger
}

// OutboxFullPolicy is what a send does when the outbox is full.
type OutboxFullPolicy int

// Outbox policies (SEMANTICS.md §8.5).
const (
	OutboxBlock  OutboxFullPolicy = iota // wait for room (bounded by ctx and SendTimeout)
	OutboxDrop                           // drop the body, counted in Dropped()
	OutboxReject                         // fail with LimitExceeded
)

// Outbox defaults.
const (
	DefaultOutboxMessages       = 1000
	DefaultOutboxBytes    int64 = 8 << 20
)

// DefaultEndpointQueue is the default accept-queue depth per path.
const DefaultEndpointQueue = 256

func (c Config) validate() (Config, error) {
	if err := c.validateGuarantees(); err != nil {
		return c, err
	}
	if c.EndpointQueue < 0 || c.MaxConnections < 0 || c.MaxConnectionsPerPeer < 0 {
		return c, errs.New(errs.KindRuntime, "config: EndpointQueue, MaxConnections and MaxConnectionsPerPeer must not be negative")
	}
	if c.OutboxMessages < 0 || c.OutboxBytes < 0 || c.SendTimeout < 0 || c.SubscriberBufferBytes < 0 {
		return c, errs.New(errs.KindRuntime, "config: OutboxMessages, OutboxBytes, SendTimeout and SubscriberBufferBytes must not be negative")
	}
	if c.OutboxFull < OutboxBlock || c.OutboxFull > OutboxReject {
		return c, errs.New(errs.KindRuntime, "config: unknown OutboxFull policy %d", c.OutboxFull)
	}
	if err := c.capReassemblyCredit(); err != nil {
		return c, err
	}
	setDefault(&c.EndpointQueue, DefaultEndpointQueue)
	setDefault(&c.OutboxMessages, DefaultOutboxMessages)
	setDefault(&c.OutboxBytes, DefaultOutboxBytes)
	setDefault(&c.SubscriberBufferBytes, DefaultSubscriberBufferBytes)
	return c, nil
}

// ReassemblyUniStreams is the uni-stream credit a runtime that offers
// PerProducer reassembly grants its peers: one more than the reorder hold
// (guarantee.MaxReorderHold), so a sender can never have more transfers
// open than the hold can wait behind a missing one. With the default
// credit (2048) a burst of numbered pushes overtook a slow header by more
// than the hold, which then let a number go early as a gap that lost
// nothing.
const ReassemblyUniStreams = guarantee.MaxReorderHold + 1

// capReassemblyCredit applies ReassemblyUniStreams to a runtime that
// offers reassembly: the default credit becomes it, and a larger explicit
// one is refused rather than silently lowered.
func (c *Config) capReassemblyCredit() error {
	if c.offered().Ordering != guarantee.PerProducerReassemble {
		return nil
	}
	switch u := c.Limits.MaxConcurrentUniStreams; {
	case u == 0:
		c.Limits.MaxConcurrentUniStreams = ReassemblyUniStreams
	case u > ReassemblyUniStreams:
		return errs.New(errs.KindRuntime, "config: ordering reassemble holds at most %d transfers, so Limits.MaxConcurrentUniStreams must be at most %d, not %d",
			guarantee.MaxReorderHold, ReassemblyUniStreams, u)
	}
	return nil
}

func (c Config) transport() transport.Config {
	tc := transport.NewConfig()
	tc.Limits = c.Limits
	tc.Offered = c.offered().Wire()
	tc.Required = c.Guarantees.Wire()
	tc.MaxConnections = c.MaxConnections
	tc.MaxConnectionsPerPeer = c.MaxConnectionsPerPeer
	if c.Datagrams {
		tc.DatagramReceiveBytes = transport.DefaultDatagramReceiveBytes
	}
	tc.PathReports = c.PathReports
	return tc
}

func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}
