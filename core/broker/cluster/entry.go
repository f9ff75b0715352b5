package cluster

import (
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/weida-go/weida/core/broker/store"
)

// EntryKind says what a replicated queue's log entry does.
type EntryKind uint8

// The entries of a replicated queue's Raft log.
const (
	// EntryAdmit adds a message: its body is durable where the entry
	// says (inline, or already streamed to the members' payload stores).
	EntryAdmit EntryKind = 1
	// EntryDeliver records a delivery before it is written to a consumer,
	// so a leader that cannot commit cannot deliver.
	EntryDeliver EntryKind = 2
	// EntrySettle removes settled messages, in a batch.
	EntrySettle EntryKind = 3
	// EntryBatch carries ADMITs of inline bodies and DELIVERs proposed
	// together (group commit), applied in order as if each were its own
	// entry: one log entry, one store write and one replication for
	// many messages. An ADMIT of a streamed body is always its own entry,
	// because its body is held by its entry's log index.
	EntryBatch EntryKind = 4
)

// Bounds on an entry, checked before anything is kept.
const (
	// MaxInlineBody is the largest body carried in the log itself; larger
	// bodies travel to the members' payload stores beside the log.
	MaxInlineBody = 4 << 10
	// MaxSettleBatch bounds the seqs one SETTLE entry carries.
	MaxSettleBatch = 4096
	// maxEntryBytes bounds an encoded entry: an inline body, metadata at
	// their caps, and CBOR's own bytes.
	maxEntryBytes = 64 << 10
	// MaxBatch bounds the entries one EntryBatch carries. A proposer
	// stops adding entries once a batch holds MaxBatchBytes of bodies and
	// metadata, so an encoded batch stays within maxBatchBytes (that, one
	// more entry at its caps, and CBOR's own bytes): a batch costs the log
	// cache and an AppendEntries what a few inline bodies do, not MiBs.
	MaxBatch      = 256
	MaxBatchBytes = 64 << 10
	maxBatchBytes = 2 * MaxBatchBytes
)

// Entry is one log entry; Kind says which fields are set.
type Entry struct {
	Kind EntryKind `cbor:"0,keyasint"`
	// Admit.
	Digest      []byte  `cbor:"1,keyasint,omitempty"` // SHA-256 of the body
	Length      uint64  `cbor:"2,keyasint,omitempty"`
	Topic       *string `cbor:"3,keyasint,omitempty"`
	ContentType *string `cbor:"4,keyasint,omitempty"`
	Traceparent *string `cbor:"5,keyasint,omitempty"`
	Tracestate  *string `cbor:"6,keyasint,omitempty"`
	Body        []byte  `cbor:"7,keyasint,omitempty"` // inline when Length <= MaxInlineBody
	// Deliver.
	Seq     uint64 `cbor:"8,keyasint,omitempty"`
	Attempt uint64 `cbor:"9,keyasint,omitempty"`
	// Settle.
	Seqs []uint64 `cbor:"10,keyasint,omitempty"`
	// Batch.
	Batch []Entry `cbor:"11,keyasint,omitempty"`
}

var (
	entryEnc = mustEncMode()
	entryDec = mustDecMode()
)

func mustEncMode() cbor.EncMode {
	em, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic("cluster: entry encoding: " + err.Error())
	}
	return em
}

func mustDecMode() cbor.DecMode {
	dm, err := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		MaxNestedLevels:   4,
		MaxArrayElements:  MaxSettleBatch,
		MaxMapPairs:       16,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		UTF8:              cbor.UTF8RejectInvalid,
	}.DecMode()
	if err != nil {
		panic("cluster: entry decoding: " + err.Error())
	}
	return dm
}

// Encode checks e and returns its canonical CBOR form.
func (e *Entry) Encode() ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	raw, err := entryEnc.Marshal(e)
	if err == nil && len(raw) > maxBatchBytes {
		return nil, fmt.Errorf("log entry: %d bytes, more than %d", len(raw), maxBatchBytes)
	}
	return raw, err
}

// DecodeEntry reads one entry, refusing anything malformed, unknown, or
// past a bound. Only a batch can be longer than maxEntryBytes: every
// other kind's fields are capped well below it.
func DecodeEntry(data []byte) (*Entry, error) {
	if len(data) > maxBatchBytes {
		return nil, fmt.Errorf("log entry: %d bytes, more than %d", len(data), maxBatchBytes)
	}
	var e Entry
	if err := entryDec.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("log entry: %w", err)
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	return &e, nil
}

// Size is roughly what e costs encoded: its body and metadata, and a
// little for the rest. A proposer sums it against MaxBatchBytes.
func (e *Entry) Size() int {
	n := 64 + len(e.Body) + len(e.Digest)
	for _, v := range []*string{e.Topic, e.ContentType, e.Traceparent, e.Tracestate} {
		if v != nil {
			n += len(*v)
		}
	}
	return n
}

// peekKind reads an encoded entry's kind without decoding it: in the
// canonical form Encode writes, an entry is a map whose first key is 0,
// the kind, a small uint. Anything else is not known here (DecodeEntry
// judges it).
func peekKind(data []byte) (EntryKind, bool) {
	if len(data) < 3 || data[0] < 0xa1 || data[0] > 0xb7 || data[1] != 0x00 || data[2] > 0x17 {
		return 0, false
	}
	return EntryKind(data[2]), true
}

// Validate reports whether e may be proposed: each kind's fields and
// bounds (Encode checks the same). A proposer that batches entries checks
// each first, so that one bad entry fails alone, not its batch.
func (e *Entry) Validate() error { return e.check() }

// check enforces each kind's fields and bounds.
func (e *Entry) check() error {
	if e.Batch != nil && e.Kind != EntryBatch {
		return fmt.Errorf("log entry: a batch's entries in an entry of kind %d", e.Kind)
	}
	switch e.Kind {
	case EntryAdmit:
		if len(e.Digest) != 32 {
			return fmt.Errorf("log entry ADMIT: digest of %d bytes, want 32", len(e.Digest))
		}
		if e.Length <= MaxInlineBody && uint64(len(e.Body)) != e.Length {
			return fmt.Errorf("log entry ADMIT: a %d-byte body must be inline, %d bytes are", e.Length, len(e.Body))
		}
		if e.Length > MaxInlineBody && e.Body != nil {
			return fmt.Errorf("log entry ADMIT: a %d-byte body must not be inline", e.Length)
		}
		for _, f := range []struct {
			name string
			v    *string
			max  int
		}{{"topic", e.Topic, store.MaxTopicBytes}, {"content_type", e.ContentType, store.MaxContentTypeBytes},
			{"traceparent", e.Traceparent, store.MaxTraceparentBytes}, {"tracestate", e.Tracestate, store.MaxTracestateBytes}} {
			if f.v != nil && len(*f.v) > f.max {
				return fmt.Errorf("log entry ADMIT: %s of %d bytes, more than %d", f.name, len(*f.v), f.max)
			}
		}
		if e.Seq != 0 || e.Attempt != 0 || e.Seqs != nil {
			return fmt.Errorf("log entry ADMIT: carries another kind's fields")
		}
	case EntryDeliver:
		if e.Seq == 0 || e.Attempt == 0 {
			return fmt.Errorf("log entry DELIVER: seq %d, attempt %d; both start at 1", e.Seq, e.Attempt)
		}
		if e.hasAdmitFields() || e.Seqs != nil {
			return fmt.Errorf("log entry DELIVER: carries another kind's fields")
		}
	case EntrySettle:
		if len(e.Seqs) == 0 || len(e.Seqs) > MaxSettleBatch {
			return fmt.Errorf("log entry SETTLE: %d seqs, want 1 to %d", len(e.Seqs), MaxSettleBatch)
		}
		for _, s := range e.Seqs {
			if s == 0 {
				return fmt.Errorf("log entry SETTLE: seq 0 (seqs start at 1)")
			}
		}
		if e.hasAdmitFields() || e.Seq != 0 || e.Attempt != 0 {
			return fmt.Errorf("log entry SETTLE: carries another kind's fields")
		}
	case EntryBatch:
		return e.checkBatch()
	default:
		return fmt.Errorf("log entry: unknown kind %d", e.Kind)
	}
	return nil
}

// checkBatch enforces a batch's bounds and checks each of its entries:
// inline ADMITs and DELIVERs only, nothing else set on the batch.
func (e *Entry) checkBatch() error {
	if len(e.Batch) == 0 || len(e.Batch) > MaxBatch {
		return fmt.Errorf("log entry BATCH: %d entries, want 1 to %d", len(e.Batch), MaxBatch)
	}
	if e.hasAdmitFields() || e.Seq != 0 || e.Attempt != 0 || e.Seqs != nil {
		return fmt.Errorf("log entry BATCH: carries another kind's fields")
	}
	for i := range e.Batch {
		b := &e.Batch[i]
		switch {
		case b.Kind == EntryAdmit && b.Length > MaxInlineBody:
			return fmt.Errorf("log entry BATCH: entry %d admits a streamed body, which must be its own entry", i)
		case b.Kind != EntryAdmit && b.Kind != EntryDeliver:
			return fmt.Errorf("log entry BATCH: entry %d is of kind %d, want ADMIT or DELIVER", i, b.Kind)
		}
		if err := b.check(); err != nil {
			return fmt.Errorf("log entry BATCH: entry %d: %w", i, err)
		}
	}
	return nil
}

func (e *Entry) hasAdmitFields() bool {
	return e.Digest != nil || e.Length != 0 || e.Topic != nil || e.ContentType != nil ||
		e.Traceparent != nil || e.Tracestate != nil || e.Body != nil
}
