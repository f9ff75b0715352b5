package store_test

import (
	"sync"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
)

// TestConcurrentAdmitsAndSettles runs producers (Flushed, group-committed)
// and a settler at once, then checks the reopened store holds exactly the
// unsettled messages.
func TestConcurrentAdmitsAndSettles(t *testing.T) {
	const producers, each = 8, 40
	dir := t.TempDir()
	opt := store.Options{SegmentBytes: 4 << 10}
	s := openStore(t, dir, opt)
	q, _ := openQueue(t, s, store.Flushed)
	admitted := make(chan store.Message, producers*each)
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// Every body appears twice across producers: dedup under contention.
				m, err := admitBytes(q, bodyOf((p%4)*each+i, 100))
				if err != nil {
					t.Error(err)
					return
				}
				admitted <- m
			}
		}()
	}
	go func() { wg.Wait(); close(admitted) }()
	live := make(map[uint64]bool)
	n := 0
	for m := range admitted {
		live[m.Seq] = true
		if n++; n%2 == 0 {
			if err := q.Settle(m.Seq); err != nil {
				t.Fatal(err)
			}
			delete(live, m.Seq)
		}
	}
	mustClose(t, s)
	s = openStore(t, dir, opt)
	defer s.Close()
	q, msgs := openQueue(t, s, store.Flushed)
	if len(msgs) != len(live) {
		t.Fatalf("reopened with %d live, want %d", len(msgs), len(live))
	}
	for _, m := range msgs {
		if !live[m.Seq] {
			t.Fatalf("settled seq %d is live after reopen", m.Seq)
		}
		readBody(t, q, m.Seq)
	}
}

// admitBytes is admit for goroutines other than the test's.
func admitBytes(q *store.Queue, body []byte) (store.Message, error) {
	b, err := q.NewBody()
	if err != nil {
		return store.Message{}, err
	}
	if _, err := b.Write(body); err != nil {
		b.Abort()
		return store.Message{}, err
	}
	return q.Admit(b, store.Meta{})
}

// TestReopenQueueInSameStore closes a queue and opens it again without
// closing the store: its live messages come back and keep their payloads
// even when another queue settles the same body meanwhile.
func TestReopenQueueInSameStore(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	other, _, err := s.OpenQueue([]byte("/other"), store.Written)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("shared by two queues")
	m := admit(t, q, body, store.Meta{})
	o := admit(t, other, body, store.Meta{})
	mustClose(t, q)
	if err := other.Settle(o.Seq); err != nil {
		t.Fatal(err)
	}
	mustClose(t, other) // removes payloads freed by /other
	q, msgs := openQueue(t, s, store.Written)
	if len(msgs) != 1 || msgs[0].Seq != m.Seq || string(readBody(t, q, m.Seq)) != string(body) {
		t.Fatalf("after reopen in the same store: %+v", msgs)
	}
	if next := admit(t, q, []byte("more"), store.Meta{}); next.Seq != m.Seq+1 {
		t.Fatalf("next seq %d, want %d", next.Seq, m.Seq+1)
	}
}
