// Package wire is weida's wire codec for protocol version 0 (PROTOCOL.md
// §4-§10): stream preambles, the CBOR headers of the nine frame kinds,
// CURSOR and REPORT records, DATAGRAM payloads, topic filters, guarantee-set
// algebra and negotiation. It does no I/O beyond ReadHeader's reads from a
// caller's io.Reader, and imports nothing else of the project.
//
// # Encoding
//
// Every header type has AppendHeader, which appends its CBOR map in the one
// form PROTOCOL.md §7.1 allows: definite length, keys ascending, integers
// minimal, absent and default values omitted. AppendFrame adds the
// preamble. Encoders append to a caller's buffer and allocate nothing else.
// They write values as given; keeping them inside the spec's caps and
// ranges is the caller's job.
//
// # Decoding
//
// ReadHeader (or ParsePreamble on buffered bytes) yields the kind and the
// header bytes; DecodeHello, DecodeData, DecodeError, DecodeSubscribe,
// DecodeCredit, DecodeCursorHead, DecodeFlow and DecodeReportHead decode
// them. All network input is hostile: every failure is a *ViolationError
// (errors.Is it with ErrProtocolViolation) whose reason names the key and
// what is wrong, and the caller closes the connection with
// PROTOCOL_VIOLATION. Every allocation sized by the peer is capped before it
// is made; the text values of one header share a single allocation, and a
// header without text or a report order decodes without allocating.
//
// A header is judged in two layers (see cborread.go): fxamacker/cbor, under
// a strict decoding mode, decides that it is exactly one well-formed CBOR
// item with no indefinite lengths, tags or unassigned simple values; a small
// iterative walker then reads the frame's schema and enforces what fxamacker
// cannot: strictly ascending uint keys, types, caps before allocation,
// enumerated values, the skip depth of unknown keys and the rejection of
// half-precision floats.
//
// Contextual rules that need more than one header, such as which kinds may
// open which stream or a second HELLO, belong to the transport; the one
// DATA rule that depends on the stream is offered as Data.CheckInitiating.
//
// # Layout
//
// Each frame kind has one file with its header type, AppendHeader and
// decoder, and its tests in the matching _test.go: hello.go, data.go,
// errorframe.go, subscribe.go (kinds 3 and 4), credit.go, cursor.go,
// flow.go and report.go; datagram.go and leaderanswer.go do the same for
// the DATAGRAM payload and the leader query's answer. They share
// preamble.go, varint.go, frame.go (AppendFrame), read.go (ReadHeader),
// cborwrite.go and cborread.go (the CBOR writer and the two-layer reader),
// headermap.go (the key rules), plainheader.go and texts.go. The protocol's
// numbers are in protocol.go, kind.go, appcodes.go and completionlevels.go;
// guarantee sets in guarantees.go and dimensions.go, negotiation in
// negotiate.go; what decoders return in decodeerrors.go.
//
// # Choices where the spec leaves room
//
//   - Non-minimal CBOR integers and varints are accepted, never written.
//   - Text inside a skipped unknown value must be valid UTF-8, like every
//     other text string.
//   - Defaults written explicitly decode to their default meaning: an empty
//     report without report_id, layer 0 (with or without a segment),
//     report_mode 0, and a delivery_attempt below 2 (decoded as absent).
//   - A CURSOR record is rejected as soon as its level is known to be
//     reserved, before its offset arrives.
//   - Negotiate checks required capabilities and required guarantees in
//     both directions, so both sides fail together.
package wire
