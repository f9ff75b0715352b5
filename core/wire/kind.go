package wire

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
