package store_test

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
)

var queuePath = []byte("/jobs")

func openStore(t testing.TB, dir string, opt store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(dir, opt)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}

func openQueue(t testing.TB, s *store.Store, d store.Durability) (*store.Queue, []store.Message) {
	t.Helper()
	q, msgs, err := s.OpenQueue(queuePath, d)
	if err != nil {
		t.Fatalf("OpenQueue: %v", err)
	}
	return q, msgs
}

// admit streams body into q in chunks of at most 7 bytes, so Write is
// exercised as a stream, and admits it with meta.
func admit(t testing.TB, q *store.Queue, body []byte, meta store.Meta) store.Message {
	t.Helper()
	b, err := q.NewBody()
	if err != nil {
		t.Fatalf("NewBody: %v", err)
	}
	for rest := body; len(rest) > 0; {
		n := min(len(rest), 7)
		if _, err := b.Write(rest[:n]); err != nil {
			t.Fatalf("Body.Write: %v", err)
		}
		rest = rest[n:]
	}
	if b.Len() != uint64(len(body)) {
		t.Fatalf("Body.Len = %d after writing %d bytes", b.Len(), len(body))
	}
	m, err := q.Admit(b, meta)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if m.Digest != sha256.Sum256(body) || m.BodyLen != uint64(len(body)) {
		t.Fatalf("Admit returned digest %x len %d for a %d-byte body", m.Digest, m.BodyLen, len(body))
	}
	return m
}

func readBody(t testing.TB, q *store.Queue, seq uint64) []byte {
	t.Helper()
	rc, err := q.OpenBody(seq)
	if err != nil {
		t.Fatalf("OpenBody(%d): %v", seq, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading body %d: %v", seq, err)
	}
	return b
}

// fileSized is the smallest body kept as a payload file rather than inline
// in its ADMIT record: tests about payload files use it.
const fileSized = store.MaxInlineBodyBytes + 1

// bodyOf makes a distinct body of n bytes for index i.
func bodyOf(i, n int) []byte {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(i*31 + k*7)
	}
	if n >= 8 {
		copy(b, []byte{byte(i), byte(i >> 8), byte(i >> 16), 0xAB})
	}
	return b
}

func seqsOf(msgs []store.Message) []uint64 {
	out := make([]uint64, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

func equalSeqs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// segments lists the queue's segment files in order.
func segments(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(store.QueueDir(dir, queuePath), "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

func mustClose(t testing.TB, c interface{ Close() error }) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func fileBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func metaEqual(a, b store.Meta) bool {
	return bytes.Equal(a.Topic, b.Topic) && bytes.Equal(a.ContentType, b.ContentType) &&
		bytes.Equal(a.Traceparent, b.Traceparent) && bytes.Equal(a.Tracestate, b.Tracestate) &&
		a.HasTopic == b.HasTopic && a.HasContentType == b.HasContentType &&
		a.HasTraceparent == b.HasTraceparent && a.HasTracestate == b.HasTracestate
}
