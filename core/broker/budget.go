package broker

import "sync/atomic"

// budget is one queue's byte bound (queue_bytes): ready and unsettled
// messages hold their charge, and admissions in progress hold what they
// have read so far. Admission goroutines reserve before they buffer a
// byte, so a queue never holds more than its bound, however many
// producers write at once. It is lock-free: every admission reserves at
// least twice, all of them against the same counter.
type budget struct {
	limit int64
	used  atomic.Int64
}

// reserve takes n bytes if they fit; false leaves the budget unchanged.
// Reserving exactly the room left succeeds (a message that exactly fits
// is admitted).
func (b *budget) reserve(n int64) bool {
	for {
		used := b.used.Load()
		if n > b.limit-used {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// release gives n reserved bytes back.
func (b *budget) release(n int64) { b.used.Add(-n) }

// charged is the bytes held and reserved now.
func (b *budget) charged() int64 { return b.used.Load() }
