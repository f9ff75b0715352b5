package guarantee

import (
	"math"
	"time"

	"github.com/weida-go/weida/core/wire"
)

// wireCode pairs a typed level with its number in the HELLO guarantee map
// (PROTOCOL.md §8.2). The tables are explicit because the Go constants are
// numbered for the zero-value rule, not for the wire.
type wireCode[T level] struct {
	level T
	code  uint64
}

var (
	deliveryCodes = []wireCode[Delivery]{
		{BestEffort, 0}, {AtMostOnce, 1}, {AtLeastOnce, 2},
	}
	acknowledgementCodes = []wireCode[Acknowledgement]{
		{AckNone, 0}, {TransportReceipt, 1}, {Accepted, 2}, {Stored, 3}, {Replicated, 4}, {Processed, 5},
	}
	// DurabilityUnset has no code: it is the absent key.
	durabilityCodes = []wireCode[Durability]{
		{Written, 0}, {Flushed, 1},
	}
	orderingCodes = []wireCode[Ordering]{
		{OrderingNone, 0}, {PerProducerDetect, 1}, {PerProducerReassemble, 2}, {PerKey, 3}, {Total, 4},
	}
	deduplicationCodes = []wireCode[Deduplication]{
		{DedupNone, 0}, {DedupBounded, 1}, {DedupDurable, 2},
	}
	backpressureCodes = []wireCode[Backpressure]{
		{Block, 0}, {Reject, 1}, {Drop, 2}, {Spill, 3}, {Coalesce, 4},
	}
	producerNamingCodes = []wireCode[ProducerNaming]{
		{NamingFingerprint, 0}, {NamingStable, 1},
	}
)

// unknownWireCode stands for a typed value outside its table. It is outside
// every wire table, so the codec refuses it instead of sending another level.
const unknownWireCode = math.MaxUint64

// maxWindowMs is the longest dedup window a time.Duration can hold.
const maxWindowMs = uint64(math.MaxInt64 / int64(time.Millisecond))

func encodeLevel[T level](v T, table []wireCode[T]) uint64 {
	for _, c := range table {
		if c.level == v {
			return c.code
		}
	}
	return unknownWireCode
}

func decodeLevel[T level](code uint64, table []wireCode[T]) (T, bool) {
	for _, c := range table {
		if c.code == code {
			return c.level, true
		}
	}
	var zero T
	return zero, false
}

// Wire returns s as the HELLO guarantee map. It is exact for every set
// Validate accepts, and core becomes wire.CoreGuarantees(). Call Validate
// first: a set it refuses has no faithful wire form. Wire then still never
// declares more than s states: an unknown level becomes a number outside the
// wire table (which the codec refuses), a negative count or window becomes
// 0, and a window that is not whole milliseconds is truncated.
func (s Set) Wire() wire.GuaranteeSet {
	w := wire.GuaranteeSet{
		Delivery:        encodeLevel(s.Delivery, deliveryCodes),
		Acknowledgement: encodeLevel(s.Acknowledgement, acknowledgementCodes),
		Ordering:        encodeLevel(s.Ordering, orderingCodes),
		Deduplication:   encodeLevel(s.Deduplication, deduplicationCodes),
		Backpressure:    encodeLevel(s.Backpressure, backpressureCodes),
		ProducerNaming:  encodeLevel(s.ProducerNaming, producerNamingCodes),
	}
	if s.Durability != DurabilityUnset {
		w.Durability = wire.Some(encodeLevel(s.Durability, durabilityCodes))
	}
	if s.Replicas != 0 {
		w.Replicas = wire.Some(uint64(max(s.Replicas, 0)))
	}
	if s.DedupWindow != 0 {
		w.DedupWindowMs = wire.Some(uint64(max(s.DedupWindow, 0) / time.Millisecond))
	}
	if s.ControlIsolated {
		w.ControlIsolated = 1
	}
	return w
}

// FromWire returns the typed form of a HELLO guarantee map. It refuses, with
// an *errs.Error of kind Runtime naming the key and the value, a number
// outside its table and a count or window the Set cannot represent (replicas
// below 2 or above the int range, a window of 0 ms or beyond time.Duration).
// It does not check how the levels combine: that is Validate's job for a
// configured set and the wire codec's for a received one.
func FromWire(w wire.GuaranteeSet) (Set, error) {
	var s Set
	var ok bool
	if s.Delivery, ok = decodeLevel(w.Delivery, deliveryCodes); !ok {
		return Set{}, unknownCode("delivery", w.Delivery)
	}
	if s.Acknowledgement, ok = decodeLevel(w.Acknowledgement, acknowledgementCodes); !ok {
		return Set{}, unknownCode("acknowledgement", w.Acknowledgement)
	}
	if w.Durability.Ok {
		if s.Durability, ok = decodeLevel(w.Durability.V, durabilityCodes); !ok {
			return Set{}, unknownCode("durability", w.Durability.V)
		}
	}
	if w.Replicas.Ok {
		n := w.Replicas.V
		if n < minReplicas || n > math.MaxInt {
			return Set{}, refuse("wire replicas %d is outside %d..%d", n, minReplicas, math.MaxInt)
		}
		s.Replicas = int(n)
	}
	if s.Ordering, ok = decodeLevel(w.Ordering, orderingCodes); !ok {
		return Set{}, unknownCode("ordering", w.Ordering)
	}
	if s.Deduplication, ok = decodeLevel(w.Deduplication, deduplicationCodes); !ok {
		return Set{}, unknownCode("deduplication", w.Deduplication)
	}
	if w.DedupWindowMs.Ok {
		ms := w.DedupWindowMs.V
		if ms == 0 || ms > maxWindowMs {
			return Set{}, refuse("wire dedup window %d ms is outside 1..%d ms", ms, maxWindowMs)
		}
		s.DedupWindow = time.Duration(ms) * time.Millisecond
	}
	if s.Backpressure, ok = decodeLevel(w.Backpressure, backpressureCodes); !ok {
		return Set{}, unknownCode("backpressure", w.Backpressure)
	}
	if s.ProducerNaming, ok = decodeLevel(w.ProducerNaming, producerNamingCodes); !ok {
		return Set{}, unknownCode("producer naming", w.ProducerNaming)
	}
	switch w.ControlIsolated {
	case 0:
	case 1:
		s.ControlIsolated = true
	default:
		return Set{}, unknownCode("control isolation", w.ControlIsolated)
	}
	return s, nil
}

func unknownCode(dimension string, code uint64) error {
	return refuse("wire %s value %d is not a known level", dimension, code)
}
