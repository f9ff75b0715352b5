// Package broker is weida's L2 queue broker (BROKER.md): queues at
// configured endpoint paths, built on the public core API and its
// QueuePort, so a broker is an ordinary weida program any process may
// embed (Broker) and the `weida broker` CLI verb runs.
//
// # In one line
//
// Accepted in (the certificate), credit-bounded delivery out, the
// consumer's Processed settles, anything unsettled comes back: delivery is
// at least once, and a repeat carries delivery_attempt.
//
// # Producers
//
// A producer is any peer sending to a queue's path: an exchange gets the
// certificate as DATA key 8 on the reply (IncomingMeta.Achieved), a one-way
// transfer gets it as an Accepted cursor when it ordered one. A memory
// queue certifies Accepted; a persistent one (Written or Flushed) certifies
// Stored, at its configured durability and never before its commit record
// exists. A full queue (QueueBytes, every held message charged
// PerMessageOverhead plus body, topic and content type) refuses with
// Rejected and the connection stays up; nothing confirmed is ever
// discarded to make room.
//
// # Consumers
//
// A consumer is an ordinary weida.Subscriber: it subscribes to the queue's
// path with a filter over message topics and grants absolute credit
// (Subscriber.Grant; initial credit is 0). Each message goes to exactly one
// subscription that has credit, round-robin, as a one-way transfer
// ordering Processed; it stays unsettled until the consumer reports
// Processed at the body's length (Subscriber.RecvReporting), at most
// MaxUnsettled per subscription and MaxConnectionUnsettled per consumer
// connection, across all its subscriptions and queues (each delivery
// holds a report id of the connection, whose table must never have to let
// one go). A delivery whose consumer goes away, or
// whose report ends without Processed, returns to the head and is
// delivered again with delivery_attempt (IncomingMeta.DeliveryAttempt).
// To give a message back on purpose, report Processed below its length (0)
// and finish the report: a report with nothing in it opens no stream, and
// a consumer that says nothing holds its delivery until its connection or
// subscription ends. There is no visibility timer. Deliveries ride
// separate streams, so one consumer may see them in any order.
//
// # Relay
//
// Levels only a consumer can answer (Processed, application stages >= 16)
// that the producer ordered are ordered on the delivery, and each
// consumer record for them is copied onto the producer's report (decision
// 0029): the consumer's statement carried one hop, never the broker's
// claim. The broker never fabricates a record, never relays one it did not
// read from its own delivery's report, and a level nobody reports stays
// silent.
//
// # Replicated queues
//
// With Config.Cluster the broker is one member of a 3- or 5-node cluster
// (docs/CLUSTER.md) and serves the cluster file's queues on Raft groups
// (hashicorp/raft), one per queue, every member in every group. Only a
// queue's leader admits and delivers: an ADMIT entry is committed before
// the producer is confirmed (Replicated(n, flushed), n the quorum, leader
// included), a DELIVER entry before each delivery's first byte, and
// settlements are committed in batched SETTLE entries. A member that does
// not lead a queue answers NOT_LEADER naming the leader; one that loses
// the leadership closes its consumers' and producers' connections with
// NOT_LEADER, and the new leader serves the same queue from the same log,
// redelivering what was out with delivery_attempt + 1. QueueStats.Cluster
// shows the group's leader, term and indexes.
//
// # Lifecycle
//
// New claims the paths, Serve runs one serial event loop per queue,
// Retire drains the queues (it is not the transport's drain), Close ends
// them. Shut down in that order, then drain the runtime.
//
// # Choices (BROKER.md §18)
//
// Stored (level 3) is reported only at a queue's configured durability and
// only once its commit record exists (O-1, O-10); key 8 carries the
// queue's certificate, the confirm waiting for the store (O-2). Only
// Processed at exactly the body's length settles (O-3). A delivery leaves
// the ready list before it is written, on a goroutine of its own; a write
// that fails puts it back without counting an attempt (O-5). A producer's
// report ends once its message settled and the consumer's report ended
// (at most REPORT_DEADLINE later), or when the queue retires or closes
// (O-6). Retired counts are defined on Retired (O-7). Tracestate is kept
// and forwarded (O-8). Only records read from the broker's own delivery
// reports are relayed, so no queue-to-queue relay exists (O-9). A message
// that keeps coming back goes to the head each time, with no backoff; its
// count shows in QueueStats.MaxAttempts (O-11). Deliveries are one-way
// transfers settled by a cursor (O-12). A body that cannot be read back
// is its message's failure, never its consumer's: set aside and retried
// after a back-off when the failure may pass (QueueStats.Deferred),
// quarantined for good when the payload is gone or fails its digest
// (QueueStats.Quarantined); a delivery holds back the body's last byte
// until the digest checked, so a failing body is reset, never received
// whole. The settling Processed is relayed by the queue's loop once the
// settlement is in its state, so Stats never lag what a producer heard.
// An admission the store recorded but could not make durable gets no
// verdict (an exchange ends NO_REPLY), never Rejected. The broker's runtime, built with
// RuntimeConfig, offers the acknowledgement every queue reaches (Accepted,
// or Stored at the weakest queue's durability) and requires core, so core
// clients connect and a client requiring more fails the handshake (O-4).
//
// # The runtime
//
// Build the runtime a broker serves on with RuntimeConfig(base, cfg): it
// marks it ServesQueues and offers what the queues reach. The offer is made
// once per connection, before any path is named, so the weakest queue sets
// it, and other endpoints on that runtime would be covered by it too: give
// them a runtime of their own. New refuses a runtime that offers more than
// its queues reach. A plain runtime works as well, offering core: clients
// requiring Accepted or Stored then fail the handshake against it.
package broker
