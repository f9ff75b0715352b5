package cluster

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/hashicorp/raft"
)

// A snapshot is a stream of frames, each a little-endian u32 length and one
// CBOR item: a header, then every live message in seq order. Frames are
// bounded, so restoring never holds more than one message in memory beyond
// the state being built.
const snapshotVersion = 0

type snapshotHeader struct {
	Version uint64 `cbor:"0,keyasint"`
	NextSeq uint64 `cbor:"1,keyasint"`
	Count   uint64 `cbor:"2,keyasint"`
}

type snapshotMessage struct {
	Seq         uint64  `cbor:"0,keyasint"`
	Digest      []byte  `cbor:"1,keyasint"`
	Length      uint64  `cbor:"2,keyasint"`
	Topic       *string `cbor:"3,keyasint,omitempty"`
	ContentType *string `cbor:"4,keyasint,omitempty"`
	Traceparent *string `cbor:"5,keyasint,omitempty"`
	Tracestate  *string `cbor:"6,keyasint,omitempty"`
	Body        []byte  `cbor:"7,keyasint,omitempty"`
	Attempts    uint64  `cbor:"8,keyasint,omitempty"`
}

// fsmSnapshot is a point-in-time copy of the state: each message copied
// by value (Apply raises Attempts in place), bodies shared (never
// changed).
type fsmSnapshot struct {
	nextSeq  uint64
	messages []Message
}

// Snapshot copies the state for Persist, which runs while Apply goes on.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &fsmSnapshot{nextSeq: f.nextSeq, messages: make([]Message, 0, len(f.live))}
	for _, seq := range slices.Sorted(maps.Keys(f.live)) {
		s.messages = append(s.messages, *f.live[seq])
	}
	return s, nil
}

// Persist streams the snapshot to sink.
func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	w := bufio.NewWriter(sink)
	err := writeFrame(w, snapshotHeader{Version: snapshotVersion, NextSeq: s.nextSeq, Count: uint64(len(s.messages))})
	for i := 0; err == nil && i < len(s.messages); i++ {
		m := &s.messages[i]
		err = writeFrame(w, snapshotMessage{Seq: m.Seq, Digest: m.Digest[:], Length: m.Length, Topic: m.Topic,
			ContentType: m.ContentType, Traceparent: m.Traceparent, Tracestate: m.Tracestate, Body: m.Body, Attempts: m.Attempts})
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release is a no-op: the snapshot holds no resource.
func (s *fsmSnapshot) Release() {}

func writeFrame(w io.Writer, v any) error {
	item, err := entryEnc.Marshal(v)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(item)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err = w.Write(item)
	return err
}

func readFrame(r io.Reader, buf []byte, v any) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return buf, err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxEntryBytes {
		return buf, fmt.Errorf("a %d-byte frame, more than %d", size, maxEntryBytes)
	}
	buf = slices.Grow(buf[:0], int(size))[:size]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	return buf, entryDec.Unmarshal(buf, v)
}

// Restore replaces the state with a snapshot's. A snapshot that breaks a
// bound, repeats or reorders a seq, or ends early is refused whole and the
// state is left as it was.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	r := bufio.NewReader(rc)
	var hdr snapshotHeader
	buf, err := readFrame(r, nil, &hdr)
	if err != nil {
		return fmt.Errorf("snapshot header: %w", err)
	}
	if hdr.Version != snapshotVersion || hdr.NextSeq == 0 {
		return fmt.Errorf("snapshot header: version %d, next seq %d", hdr.Version, hdr.NextSeq)
	}
	next := NewFSM()
	next.nextSeq = hdr.NextSeq
	var last uint64
	for i := uint64(0); i < hdr.Count; i++ {
		var sm snapshotMessage
		if buf, err = readFrame(r, buf, &sm); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("snapshot message %d of %d: %w", i+1, hdr.Count, err)
		}
		m, err := sm.message()
		if err == nil && (m.Seq <= last || m.Seq >= hdr.NextSeq) {
			err = fmt.Errorf("seq %d after %d, next seq %d", m.Seq, last, hdr.NextSeq)
		}
		if err != nil {
			return fmt.Errorf("snapshot message %d: %w", i+1, err)
		}
		last = m.Seq
		next.live[m.Seq] = m
		if !m.Inline() {
			next.refs[m.Digest]++
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return fmt.Errorf("snapshot: data after its %d messages", hdr.Count)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextSeq, f.live, f.refs = next.nextSeq, next.live, next.refs
	f.lastIndex = 0 // the snapshot's is not known: settledPast waits for an apply
	f.noteAppliedLocked()
	if f.bodies == nil {
		return nil
	}
	// The payload store follows: bodies of the old state go, the new
	// state's it lacks are fetched.
	streamed := make(map[[32]byte]uint64, len(f.refs))
	for _, m := range f.live {
		if !m.Inline() {
			streamed[m.Digest] = m.Length
		}
	}
	return f.bodies.restored(streamed)
}

// message checks a snapshot record by the ADMIT entry's rules.
func (sm *snapshotMessage) message() (*Message, error) {
	e := Entry{Kind: EntryAdmit, Digest: sm.Digest, Length: sm.Length, Topic: sm.Topic, ContentType: sm.ContentType,
		Traceparent: sm.Traceparent, Tracestate: sm.Tracestate, Body: sm.Body}
	if err := e.check(); err != nil {
		return nil, err
	}
	if sm.Seq == 0 {
		return nil, fmt.Errorf("seq 0")
	}
	m := &Message{Seq: sm.Seq, Length: sm.Length, Topic: sm.Topic, ContentType: sm.ContentType,
		Traceparent: sm.Traceparent, Tracestate: sm.Tracestate, Body: sm.Body, Attempts: sm.Attempts}
	copy(m.Digest[:], sm.Digest)
	return m, nil
}
