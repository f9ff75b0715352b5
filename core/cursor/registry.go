package cursor

import "sync"

// MaxAwaiting bounds the reports one side awaits on one connection: orders
// whose CURSOR stream has not arrived. A receiver that reports nothing
// opens no stream (§8.6.3), so an order it ignores would otherwise be held
// until the connection ends; past the bound the oldest is let go.
const MaxAwaiting = 4096

// Awaiting is a report whose CURSOR stream has not arrived yet.
type Awaiting interface {
	// ReportEnded says the stream will never be taken from the registry:
	// the connection ended, or the report was let go to make room.
	ReportEnded()
}

// Registry holds the report ids one side handed out on one connection
// (PROTOCOL.md §8.3.5) and the report awaiting each id's CURSOR stream.
// Ids count from 1 upward and 0 is never handed out; an id is never reused
// on the connection, so a late stream for a released id is unknown. A
// Registry is safe for concurrent use; the zero value is not, use
// NewRegistry.
type Registry[A Awaiting] struct {
	mu       sync.Mutex
	last     uint64 // the last id handed out
	oldest   uint64 // no awaited id is below it
	awaiting map[uint64]A
	limit    int
	closed   bool
}

// NewRegistry returns an empty registry awaiting at most limit reports
// (MaxAwaiting when limit is not positive).
func NewRegistry[A Awaiting](limit int) *Registry[A] {
	if limit <= 0 {
		limit = MaxAwaiting
	}
	return &Registry[A]{awaiting: make(map[uint64]A), limit: limit, oldest: 1}
}

// Open hands out the next id for a. When the registry already awaits its
// limit, the oldest report is let go and told so (outside the lock). It
// reports false after Close: the connection has ended.
func (r *Registry[A]) Open(a A) (uint64, bool) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return 0, false
	}
	var evicted A
	full := len(r.awaiting) >= r.limit
	if full {
		evicted = r.popOldestLocked()
	}
	r.last++
	id := r.last
	r.awaiting[id] = a
	r.mu.Unlock()
	if full {
		evicted.ReportEnded()
	}
	return id, true
}

// popOldestLocked removes the lowest awaited id. Ids are handed out in
// order, so the scan from the last oldest costs O(1) amortized.
func (r *Registry[A]) popOldestLocked() A {
	for {
		if a, ok := r.awaiting[r.oldest]; ok {
			delete(r.awaiting, r.oldest)
			r.oldest++
			return a
		}
		r.oldest++
	}
}

// Take removes and returns the report awaiting id: its CURSOR stream
// arrived. It reports false for an id never handed out, already taken or
// released — the stream is then answered STOP_SENDING(CANCELED) and
// nothing is allocated for it (§8.6.2 rule 3).
func (r *Registry[A]) Take(id uint64) (A, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.awaiting[id]
	if ok {
		delete(r.awaiting, id)
	}
	return a, ok
}

// Release forgets id without ending its report (the caller is the one
// giving it up); it reports whether id was still awaited.
func (r *Registry[A]) Release(id uint64) bool {
	_, ok := r.Take(id)
	return ok
}

// Len is the number of reports awaited.
func (r *Registry[A]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.awaiting)
}

// Close ends every awaited report and refuses later Opens. It is
// idempotent.
func (r *Registry[A]) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	ended := r.awaiting
	r.awaiting = nil
	r.mu.Unlock()
	for _, a := range ended {
		a.ReportEnded()
	}
}
