package store

import "github.com/weida-go/weida/core/errs"

// Meta is what a message carries besides its body. Every field is an
// optional byte string; the Has flags keep "absent" apart from "empty".
type Meta struct {
	Topic, ContentType, Traceparent, Tracestate             []byte
	HasTopic, HasContentType, HasTraceparent, HasTracestate bool
}

// Message is one live message: admitted and not yet settled.
type Message struct {
	Seq      uint64   // position in the queue, monotone from 1
	Digest   [32]byte // SHA-256 of the body; names the payload file
	BodyLen  uint64
	Meta     Meta
	Attempts uint64 // last count recorded by Queue.Attempt; 0 = never delivered

	// inline is the body of a message stored in its ADMIT_INLINE record,
	// nil for one whose body is a payload file. Never modified once set.
	inline []byte
}

// isInline reports whether m's body lives in its journal record, so it has
// no payload file and no payload reference.
func (m *Message) isInline() bool { return m.inline != nil }

// validate checks the caps of BROKER.md §4.2 before anything is written.
func (m *Meta) validate() error {
	for _, f := range m.fields() {
		if *f.has && len(*f.val) > f.max {
			return errs.New(errs.KindTooLarge, "store: %s is %d bytes, over the cap of %d", f.name, len(*f.val), f.max)
		}
		if !*f.has && len(*f.val) != 0 {
			return errs.New(errs.KindRuntime, "store: %s has bytes but is marked absent", f.name)
		}
	}
	return nil
}

// clone copies m's strings into one allocation, so the store never aliases
// a caller's buffer.
func (m Meta) clone() Meta {
	fs := m.fields()
	n := 0
	for _, f := range fs {
		n += len(*f.val)
	}
	buf := make([]byte, 0, n)
	for _, f := range fs {
		if *f.has {
			at := len(buf)
			buf = append(buf, *f.val...)
			*f.val = buf[at:len(buf):len(buf)]
		}
	}
	return m
}
