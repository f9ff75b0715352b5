package wire

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

// MaxLayer is the highest segment layer (DATA key 14, SUBSCRIBE key 3).
const MaxLayer = 15
