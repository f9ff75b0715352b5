package cursor

import (
	"sync"
	"testing"
)

// report is an Awaiting that counts how often it was told it ended.
type report struct {
	mu    sync.Mutex
	ended int
}

func (r *report) ReportEnded() {
	r.mu.Lock()
	r.ended++
	r.mu.Unlock()
}

func (r *report) endedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

func TestRegistryHandsOutIdsFromOne(t *testing.T) {
	reg := NewRegistry[*report](0)
	for want := uint64(1); want <= 3; want++ {
		if id, ok := reg.Open(&report{}); !ok || id != want {
			t.Fatalf("Open = %d, %v; want %d", id, ok, want)
		}
	}
	// A released or taken id is never handed out again.
	reg.Release(2)
	if id, _ := reg.Open(&report{}); id != 4 {
		t.Fatalf("after a release Open = %d, want 4", id)
	}
}

func TestRegistryTake(t *testing.T) {
	reg := NewRegistry[*report](0)
	first := &report{}
	id, _ := reg.Open(first)
	tests := []struct {
		name string
		id   uint64
		want *report
	}{
		{name: "the awaited id", id: id, want: first},
		{name: "the same id again", id: id},
		{name: "id 0 is never handed out", id: 0},
		{name: "an id never handed out", id: 77},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := reg.Take(tt.id)
			if ok != (tt.want != nil) || got != tt.want {
				t.Fatalf("Take(%d) = %p, %v; want %p", tt.id, got, ok, tt.want)
			}
		})
	}
	if first.endedCount() != 0 {
		t.Fatal("a taken report was told it ended")
	}
}

func TestRegistryLetsTheOldestGoAtItsLimit(t *testing.T) {
	reg := NewRegistry[*report](2)
	a, b, c, d := &report{}, &report{}, &report{}, &report{}
	idA, _ := reg.Open(a)
	idB, _ := reg.Open(b)
	reg.Take(idA) // no longer awaited: the limit counts only awaited reports
	idC, _ := reg.Open(c)
	if a.endedCount()+b.endedCount() != 0 || reg.Len() != 2 {
		t.Fatalf("under the limit something ended (len %d)", reg.Len())
	}
	idD, _ := reg.Open(d)
	if b.endedCount() != 1 || c.endedCount() != 0 || d.endedCount() != 0 {
		t.Fatalf("ended: b %d c %d d %d; want only the oldest, b", b.endedCount(), c.endedCount(), d.endedCount())
	}
	if _, ok := reg.Take(idB); ok {
		t.Fatal("a report let go is still awaited")
	}
	for _, id := range []uint64{idC, idD} {
		if _, ok := reg.Take(id); !ok {
			t.Fatalf("id %d is no longer awaited", id)
		}
	}
}

func TestRegistryCloseEndsEveryAwaitedReport(t *testing.T) {
	reg := NewRegistry[*report](0)
	awaited, taken := &report{}, &report{}
	reg.Open(awaited)
	id, _ := reg.Open(taken)
	reg.Take(id)
	reg.Close()
	reg.Close()
	if awaited.endedCount() != 1 || taken.endedCount() != 0 {
		t.Fatalf("ended: awaited %d, taken %d; want 1 and 0", awaited.endedCount(), taken.endedCount())
	}
	if _, ok := reg.Open(&report{}); ok {
		t.Fatal("Open succeeded after Close")
	}
	if _, ok := reg.Take(1); ok {
		t.Fatal("Take succeeded after Close")
	}
}
