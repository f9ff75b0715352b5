package broker

import "sync"

// budget is one queue's byte bound (queue_bytes): ready and unsettled
// messages hold their charge, and admissions in progress hold what they
// have read so far. Admission goroutines reserve before they buffer a
// byte, so a queue never holds more than its bound, however many
// producers write at once.
type budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// reserve takes n bytes if they fit; false leaves the budget unchanged.
// Reserving exactly the room left succeeds (a message that exactly fits
// is admitted).
func (b *budget) reserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.limit-b.used {
		return false
	}
	b.used += n
	return true
}

// release gives n reserved bytes back.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// charged is the bytes held and reserved now.
func (b *budget) charged() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
