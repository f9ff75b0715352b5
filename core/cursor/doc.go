// Package cursor is weida's completion reporting (decision 0023, amended by
// 0029; PROTOCOL.md §8.3.5 and §8.6): a completion is a cursor, a
// (level, offset) pair saying that payload bytes [0, offset) of one transfer
// reached level, reported by whoever knows it on a CURSOR stream of its own.
//
// The package is pure logic plus I/O over io.Reader and io.Writer; it knows
// nothing of QUIC. Its parts, one per file:
//
//   - level.go: the level space. 1..5 are weida's named levels
//     (TransportReceipt, Accepted, Stored, Replicated, Processed), 6..15 are
//     reserved for later protocol versions, and ApplicationFloor (16) and
//     above belong to applications: carried and ordered, never interpreted.
//   - order.go: a report order, what a sender asks the receiver to report —
//     at most 16 levels, sorted and de-duplicated, none reserved, and a mode
//     (Progress or FinalOnly). NewOrder refuses a bad order with a Protocol
//     error before anything is sent.
//   - registry.go: the report ids one side hands out on one connection
//     (from 1 upward, never 0) and who awaits each report's CURSOR stream.
//   - offsets.go and reader.go: the ordering side. A Reader parses the
//     records of a CURSOR stream; Offsets keeps the highest offset per
//     ordered level in a fixed table, so repeats, reordering and backwards
//     records change nothing and a flood of records allocates nothing.
//   - writer.go: the reporting side. A Writer opens its stream lazily on the
//     first record, writes progress at a granularity ("every N bytes or
//     every T, whichever first"), writes exactly one record per level in
//     FinalOnly mode, and is best effort: a failed write ends the report
//     silently. Report and Finish never wait for the network: records go
//     out from a goroutine of the writer's, or from Report itself when the
//     open stream takes them without waiting (TryWriter).
//
// What a cursor is not: a guarantee (an order is a request; a level nobody
// reports is simply absent), a refusal (refusals use the stream codes), or
// transport progress. The library never synthesizes a record, not even
// TransportReceipt: ordering level 1 lets a receiver report it, and the
// sender's own transport receipt stays Delivery's business (decision 0023
// §4.1).
package cursor
