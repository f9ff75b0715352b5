package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/errs"
)

// TestSettledPayloadsRemovedInBatches: payload files go once a batch of
// SETTLEs is synced (64 of them), the rest at Close, never before their
// SETTLE could be durable.
func TestSettledPayloadsRemovedInBatches(t *testing.T) {
	const batch, extra = 64, 6
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	var msgs []store.Message
	for i := 0; i < batch+extra; i++ {
		msgs = append(msgs, admit(t, q, bodyOf(i, fileSized), store.Meta{}))
	}
	onDisk := func(m store.Message) bool {
		_, err := os.Stat(store.PayloadPath(dir, m.Digest))
		return err == nil
	}
	for i, m := range msgs {
		if err := q.Settle(m.Seq); err != nil {
			t.Fatal(err)
		}
		if err := store.Housekeep(q); err != nil {
			t.Fatal(err)
		}
		if i == batch-2 && !onDisk(msgs[0]) {
			t.Fatal("a payload was removed before its batch was synced")
		}
	}
	for i, m := range msgs {
		if want := i >= batch; onDisk(m) != want {
			t.Fatalf("payload %d on disk = %v before Close, want %v", i, onDisk(m), want)
		}
	}
	mustClose(t, q)
	for i, m := range msgs {
		if onDisk(m) {
			t.Fatalf("payload %d still on disk after Close", i)
		}
	}
}

// TestClosedQueueRefuses: a body begun before Close cannot be admitted
// after it, and leaves no payload behind.
func TestClosedQueueRefuses(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	m := admit(t, q, bodyOf(1, fileSized), store.Meta{})
	b, err := q.NewBody()
	if err != nil {
		t.Fatal(err)
	}
	b.Write([]byte("begun before close"))
	mustClose(t, q)
	calls := []struct {
		name string
		call func() error
	}{
		{"Admit", func() error { _, err := q.Admit(b, store.Meta{}); return err }},
		{"NewBody", func() error { _, err := q.NewBody(); return err }},
		{"Settle", func() error { return q.Settle(m.Seq) }},
		{"Attempt", func() error { return q.Attempt(m.Seq, 2) }},
		{"OpenBody", func() error { _, err := q.OpenBody(m.Seq); return err }},
	}
	for _, c := range calls {
		if err := c.call(); errs.KindOf(err) != errs.KindRuntime {
			t.Errorf("%s on a closed queue = %v, want a Runtime error", c.name, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "payload", "*", "*"))
	if len(files) != 1 {
		t.Errorf("%d payload files after a refused Admit, want 1: %v", len(files), files)
	}
	if err := q.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := os.Stat(store.PayloadPath(dir, m.Digest)); errors.Is(err, os.ErrNotExist) {
		t.Error("Close removed a live payload")
	}
}
