// Package weida is a QUIC-native messaging library: every message is a QUIC
// stream, so a 40-byte message and a 40-GB one share one set of semantics and
// neither has to sit in memory whole.
//
// # Runtime, bindings, endpoints
//
// A Runtime owns a process's connections. Its Listener is a namespace of
// endpoint paths served on one or more bindings (BindQUIC; BindInproc and
// BindUnix for the local transports, which carry the same frames without
// TLS); bound endpoints register at a path. Dialling endpoints are made by
// the Runtime and Connect to URLs (weida://, weida+inproc://,
// weida+unix://); each connected URL is a slot that is redialled with
// backoff when its connection is lost (pinned to the key it first proved)
// and reports its transitions as PeerEvents and ConnectionStats.
//
// # Patterns
//
//   - Req/Rep: Requester (dials) and Replier (binds); one exchange is one
//     bidirectional stream, and the stream is the correlation.
//   - Push/Pull: Pusher (dials, with an outbox for outages) and Puller (binds).
//   - Pub/Sub: Publisher (binds) and Subscriber (dials); topic filters are
//     dot-segmented with * and a trailing #, matched at the publisher; a slow
//     subscriber loses copies (counted per topic and cause) and never slows
//     the publisher. FanOut streams one payload to every subscriber.
//   - PAIR: Paired, one peer at a time; a second is refused, the first kept.
//   - SURVEY: Surveyor asks every Respondent under a deadline; silence and
//     lateness are counted, not raised.
//   - BUS: BusMember, bound and dialling at once; one copy to every member
//     it dialled, never to itself.
//   - Raw streams (L0): Peer opens one-way transfers and exchanges; an
//     Acceptor takes both at a path. With Config.Datagrams on both ends, a
//     Peer's OpenFlow is a datagram Flow (never replaced by a stream) and
//     the Acceptor takes it as an IncomingFlow with a drop-oldest ring.
//   - RADIO/DISH: Radio (binds) and Dish (dials) fan out segments, units
//     whose newest copy is what matters: opening a segment supersedes the
//     older copies still in flight on its topic, copies expire at max_age,
//     layers 0..15 are cut from the top under pressure, and numbers never go
//     backwards at a dish. Radio.Datagram sends one-packet segments.
//
// # Guarantees
//
// Config.Guarantees is the runtime's guarantee set, required of every peer
// and offered on every connection; the zero value is core. Config.Offer
// offers more: a broker's runtime (broker.RuntimeConfig) offers Accepted or
// Stored and requires core, so a client whose Guarantees require Accepted
// connects to it and fails the handshake against any other (such a client
// only dials). Beyond core this build honours PerProducer ordering and
// Bounded deduplication, for one-way transfers (never exchanges). The sender numbers each transfer per connection and
// topic, else path, so a receiver in detect mode reports what it never got
// as IncomingMeta.Missed, a reassembling one holds early arrivals (at most
// 256 per connection) and releases them in order, and a deduplicating one
// discards a repeat within its window (Runtime.SuppressedDuplicates). A
// publisher numbers a subscriber's copy before it may drop it, so the
// subscriber sees the drop. A peer that cannot honour the set fails the
// handshake on both sides, naming the dimension: the dialler's Connect
// returns the error, the listener records it (NegotiationFailures).
//
// # Identity and trust
//
// Peers are identified by the SHA-256 fingerprint of their public key, not by
// a CA: a server prints an address naming its key
// (weida://sha256:…@host:port/path) and a client that dials that address
// trusts exactly that key (TrustByAddress). Any other key fails with an
// *Error of kind Untrusted naming the key that answered.
//
// # Queues
//
// A queue broker (package broker) is an ordinary program on this API: a
// QueuePort at a path takes producers' transfers and exchanges and hears
// consumers' SUBSCRIBE, CREDIT and UNSUBSCRIBE as PortEvents, answers an
// exchange with its certificate (Confirm: DATA key 8, read back with
// IncomingMeta.Achieved) and delivers toward one consumer's connection
// (Deliver, labelled with IncomingMeta.DeliveryAttempt from the second
// attempt on). A consumer is a Subscriber that grants credit (Grant) and
// settles with Processed on the Reporter RecvReporting hands out.
//
// # Outcomes
//
// Finish returns a Delivery whose Delivered resolves only when the peer's
// QUIC stack acknowledged every byte and the FIN (the transport receipt) —
// never on a timer; on a local transport, when the FIN is in the peer's
// buffer (pipe or kernel socket queue). A connection lost after the FIN is Indeterminate, never a
// definite failure; refusals are typed (Rejected, UnknownEndpoint,
// Unsupported). Every error is an *Error with a Kind;
// errors.Is(err, weida.ErrRejected) tests a kind, IsDefiniteFailure tells a
// definite failure from an unknown outcome.
//
// Every receive takes a byte ceiling: above it the payload is refused (the
// sender sees Rejected) and nothing is held. Every blocking call takes a
// context.Context; cancelling it resets the streams the call owns, so the
// peer learns. Runtime.Drain ends gracefully within a deadline and reports
// what was delivered and what was still outstanding.
package weida
