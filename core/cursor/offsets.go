package cursor

import "github.com/weida-go/weida/core/wire"

// Offsets is the ordering side's view of one report: for each ordered
// level, the highest offset any record reported (PROTOCOL.md §8.6.2 rule
// 1). Cursors are absolute, so keeping the maximum is the whole rule: a
// repeated, reordered or backwards record changes nothing and is not an
// error. A level that was not ordered is ignored (rule 2). The table is
// fixed at the order's size, so applying records never allocates.
type Offsets struct {
	order  Order
	offset [MaxLevels]uint64
	seen   uint32 // bit i: order.Level(i) was reported at least once
	stray  uint64 // records for a level that was not ordered
}

// NewOffsets returns an empty table for the levels of o.
func NewOffsets(o Order) Offsets { return Offsets{order: o} }

// Apply takes one record into the table and reports whether it changed
// anything: a level's first record always does (even at offset 0), later
// ones only when they move the level forward.
func (s *Offsets) Apply(rec wire.CursorRecord) bool {
	i, ok := s.order.Index(rec.Level)
	if !ok {
		s.stray++
		return false
	}
	bit := uint32(1) << i
	if s.seen&bit != 0 && rec.Offset <= s.offset[i] {
		return false
	}
	s.seen |= bit
	s.offset[i] = rec.Offset
	return true
}

// Offset is the highest offset reported for level; false when level was
// not ordered or nobody reported it yet.
func (s *Offsets) Offset(level uint64) (uint64, bool) {
	i, ok := s.order.Index(level)
	if !ok || s.seen&(1<<i) == 0 {
		return 0, false
	}
	return s.offset[i], true
}

// Snapshot returns the reported levels and their offsets in a fresh map;
// a level nobody reported is absent.
func (s *Offsets) Snapshot() map[uint64]uint64 {
	m := make(map[uint64]uint64, s.order.Len())
	for i := 0; i < s.order.Len(); i++ {
		if s.seen&(1<<i) != 0 {
			m[s.order.Level(i)] = s.offset[i]
		}
	}
	return m
}

// Stray counts the records ignored for a level that was not ordered: a
// receiver reporting what it was not asked, which is no error (rule 2).
func (s *Offsets) Stray() uint64 { return s.stray }

// Order is the order the table follows.
func (s *Offsets) Order() Order { return s.order }
