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

// Protocol constants (PROTOCOL.md §0, §4, §13).
const (
	Magic                 = 0x57
	ALPN                  = "weida/0"
	Version        uint64 = 0
	MaxPreambleLen        = 10
	// DefaultMaxHeaderBytes is the default local max_header_bytes.
	DefaultMaxHeaderBytes = 16384
	// MaxListItems caps every list-valued HELLO key.
	MaxListItems = 64
	// MaxReportLevels caps a DATA report order (key 10).
	MaxReportLevels = 16
	// MaxSkipDepth is the deepest nesting of non-empty containers in a skipped value.
	MaxSkipDepth = 8
	// ApplicationFloor is the first level an application may name.
	ApplicationFloor uint64 = 16
	// CapabilityDatagram (1) says the sender reads DATAGRAM frames and FLOW streams.
	CapabilityDatagram uint64 = 1
	// CapabilityPathReport (2) says the sender reads and writes one REPORT stream.
	CapabilityPathReport uint64 = 2
)

// String caps in bytes (PROTOCOL.md §8).
const (
	CapEndpoint    = 512
	CapContentType = 256
	CapTraceparent = 128
	CapTracestate  = 512
	CapTopic       = 256
	CapFilter      = 256
	CapLeader      = 1024 // ERROR key 1 and the leader query's answer
	ProducerLen    = 32
)

// Opt is an optional header value: Ok reports presence, which the wire
// distinguishes from any default value.
type Opt[T any] struct {
	V  T
	Ok bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, Ok: true} }

// GuaranteeSet is the nested map of HELLO keys 5 and 6 (PROTOCOL.md §8.2),
// as plain level numbers. Fields at their core level are not written.
type GuaranteeSet struct {
	Delivery        uint64      // key 0: 0 BestEffort (core), 1 AtMostOnce, 2 AtLeastOnce
	Acknowledgement uint64      // key 1: 0 None, 1 TransportReceipt (core), 2..5
	Durability      Opt[uint64] // key 2: 0 Written, 1 Flushed; only with acknowledgement 3 or 4
	Replicas        Opt[uint64] // key 3: >= 2; only with acknowledgement 4
	Ordering        uint64      // key 4: 0 None (core), 1 detect, 2 reassemble, 3 PerKey, 4 Total
	Deduplication   uint64      // key 5: 0 None (core), 1 Bounded, 2 Durable
	DedupWindowMs   Opt[uint64] // key 6: required with deduplication 1, forbidden otherwise
	Backpressure    uint64      // key 7: 0 Block (core), 1 Reject, 2 Drop, 3 Spill, 4 Coalesce
	ProducerNaming  uint64      // key 8: 0 fingerprint (core), 1 stable
	ControlIsolated uint64      // key 9: 0 no (core), 1 yes
}

// CoreGuarantees returns the core set: what an absent or empty map means.
func CoreGuarantees() GuaranteeSet { return GuaranteeSet{Acknowledgement: 1} }

// Hello is the HELLO header (kind 0, PROTOCOL.md §8.1).
type Hello struct {
	Versions             []uint64     // key 0, required, <= 64 items
	MaxHeaderBytes       uint64       // key 1, required
	MaxTransfers         uint64       // key 2, required, advisory
	Capabilities         []uint64     // key 3, required, <= 64 items
	RequiredCapabilities []uint64     // key 4, required, <= 64 items
	Offered              GuaranteeSet // key 5, absent = core
	Required             GuaranteeSet // key 6, absent = core
}

// Data is the DATA header (kind 1, PROTOCOL.md §8.3). Every key is optional
// at the decoder; contextual requirements are checked at dispatch.
type Data struct {
	Endpoint        Opt[string]   // key 0, <= 512 B
	ContentLen      Opt[uint64]   // key 1, advisory
	ContentType     Opt[string]   // key 2, <= 256 B
	Traceparent     Opt[string]   // key 3, <= 128 B
	Tracestate      Opt[string]   // key 4, <= 512 B
	Topic           Opt[string]   // key 5, <= 256 B
	Sequence        Opt[uint64]   // key 6
	Producer        Opt[[32]byte] // key 7, exactly 32 B
	Achieved        Opt[uint64]   // key 8, 0..=5
	ReportID        Opt[uint64]   // key 9, travels with key 10
	Report          []uint64      // key 10, 1..16 strictly ascending levels; nil = absent
	ReportMode      uint64        // key 11, 0 progress (never written) or 1 final-only
	DeliveryAttempt Opt[uint64]   // key 12, written only when >= 2
	Segment         Opt[uint64]   // key 13
	Layer           uint64        // key 14, 0..=15, 0 never written, only with key 13
}

// ErrorFrame is the ERROR header (kind 2, reply half only).
type ErrorFrame struct {
	Code   uint64      // key 0, required; see ErrorCode constants
	Leader Opt[string] // key 1, <= 1024 B: NOT_LEADER's leader URL, when one is known
	Term   Opt[uint64] // key 2: NOT_LEADER's Raft term
}

// Subscribe is the SUBSCRIBE / UNSUBSCRIBE header (kinds 3 and 4).
type Subscribe struct {
	Endpoint string      // key 0, required
	Filter   string      // key 1, required (may be empty)
	MaxAgeMs Opt[uint64] // key 2
	MaxLayer Opt[uint64] // key 3, 0..=15
}

// Credit is the CREDIT header (kind 5).
type Credit struct {
	Endpoint string // key 0, required
	Filter   string // key 1, required
	Limit    uint64 // key 2, required
}

// CursorHead is the CURSOR head header (kind 6).
type CursorHead struct {
	ReportID uint64 // key 0, required
}

// CursorRecord is one (level, offset) varint pair after a CURSOR head.
type CursorRecord struct {
	Level  uint64
	Offset uint64
}

// Flow is the FLOW header (kind 7).
type Flow struct {
	Endpoint    string      // key 0, required
	Flow        uint64      // key 1, required
	ContentType Opt[string] // key 2
	Traceparent Opt[string] // key 3
	Tracestate  Opt[string] // key 4
	Topic       Opt[string] // key 5
}
