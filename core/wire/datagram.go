package wire

import "errors"

// DATAGRAM payloads (PROTOCOL.md §8.8): [flow: varint][opaque bytes].

// ErrTruncatedDatagram reports a datagram that ends inside its flow id. It
// is not a violation: the receiver drops the datagram (§8.8).
var ErrTruncatedDatagram = errors.New("datagram ends inside its flow id")

// AppendDatagram appends the flow id and the payload. It panics if flow is
// above MaxVarint.
func AppendDatagram(b []byte, flow uint64, payload []byte) []byte {
	return append(AppendVarint(b, flow), payload...)
}

// ParseDatagram splits a datagram into its flow id and payload; the payload
// aliases b. A datagram too short for its flow id yields ErrTruncatedDatagram.
func ParseDatagram(b []byte) (flow uint64, payload []byte, err error) {
	flow, n, err := ParseVarint(b)
	if err != nil {
		return 0, nil, ErrTruncatedDatagram
	}
	return flow, b[n:], nil
}
