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
// MaxUnsettled per subscription. A delivery whose consumer goes away, or
// whose report ends without Processed, returns to the head and is
// delivered again with delivery_attempt (IncomingMeta.DeliveryAttempt).
// There is no visibility timer.
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
// # Lifecycle
//
// New claims the paths, Serve runs one serial event loop per queue,
// Retire drains the queues (it is not the transport's drain), Close ends
// them.
package broker
