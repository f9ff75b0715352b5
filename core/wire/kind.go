package wire

// Kind is the one-byte frame kind of a stream preamble (PROTOCOL.md §6).
type Kind uint8

// The frame kinds of wire v0. Kinds 9..=255 are fatal.
const (
	KindHello       Kind = 0
	KindData        Kind = 1
	KindError       Kind = 2
	KindSubscribe   Kind = 3
	KindUnsubscribe Kind = 4
	KindCredit      Kind = 5
	KindCursor      Kind = 6
	KindFlow        Kind = 7
	KindReport      Kind = 8 // only on QUIC with capability 2 agreed (§8.9)
)

var kindNames = [...]string{
	KindHello:       "HELLO",
	KindData:        "DATA",
	KindError:       "ERROR",
	KindSubscribe:   "SUBSCRIBE",
	KindUnsubscribe: "UNSUBSCRIBE",
	KindCredit:      "CREDIT",
	KindCursor:      "CURSOR",
	KindFlow:        "FLOW",
	KindReport:      "REPORT",
}

// String returns the frame name of k ("DATA"), or "KIND_<n>" for the
// undefined kinds 9..=255.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return "KIND_" + itoa(uint64(k))
}

// Valid reports whether k is one of the nine kinds of wire v0.
func (k Kind) Valid() bool { return int(k) < len(kindNames) }
