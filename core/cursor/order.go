package cursor

import (
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// Order is a validated report order (PROTOCOL.md §8.3.5): the levels a
// sender asks the receiver of one transfer to report, strictly ascending,
// and the mode. It is a value of fixed size. The zero Order orders nothing.
//
// An order is a request, not a guarantee: a receiver that cannot reach a
// level never reports it, and the transfer does not fail.
type Order struct {
	levels [MaxLevels]uint64
	n      int
	mode   Mode
}

// NewOrder validates levels and mode and returns them as an Order, sorted
// and de-duplicated; the caller's slice is left as it is. Empty levels are
// a valid order of nothing. It fails with a Protocol error naming the
// problem, so nothing is sent, when a level is reserved (6..15) or has no
// varint encoding (above 2^62-1), when more than 16 distinct levels remain,
// or when mode is neither Progress nor FinalOnly.
func NewOrder(levels []uint64, mode Mode) (Order, error) {
	if mode != Progress && mode != FinalOnly {
		return Order{}, errs.New(errs.KindProtocol, "report order: mode %d is neither Progress (0) nor FinalOnly (1)", uint64(mode))
	}
	o := Order{mode: mode}
	for _, level := range levels {
		switch {
		case Reserved(level):
			return Order{}, errs.New(errs.KindProtocol, "report order: level %d is reserved (6..15 belong to later protocol versions)", level)
		case level > wire.MaxVarint:
			return Order{}, errs.New(errs.KindProtocol, "report order: level %d exceeds the varint range (2^62-1)", level)
		}
		if !o.insert(level) {
			return Order{}, errs.New(errs.KindProtocol, "report order: more than %d distinct levels", MaxLevels)
		}
	}
	return o, nil
}

// insert adds level in ascending position unless it is already there; it
// reports false when the order is full.
func (o *Order) insert(level uint64) bool {
	i := 0
	for i < o.n && o.levels[i] < level {
		i++
	}
	if i < o.n && o.levels[i] == level {
		return true
	}
	if o.n == MaxLevels {
		return false
	}
	copy(o.levels[i+1:o.n+1], o.levels[i:o.n])
	o.levels[i] = level
	o.n++
	return true
}

// Empty reports whether the order names no level: nothing is ordered.
func (o Order) Empty() bool { return o.n == 0 }

// Len is the number of ordered levels.
func (o Order) Len() int { return o.n }

// Level is the i-th ordered level, ascending.
func (o Order) Level(i int) uint64 { return o.levels[i] }

// Levels returns the ordered levels, ascending, in a fresh slice.
func (o Order) Levels() []uint64 { return append([]uint64(nil), o.levels[:o.n]...) }

// Mode is when the receiver writes its records.
func (o Order) Mode() Mode { return o.mode }

// Index returns the position of level in the order, or false when it was
// not ordered. Orders are short, so a scan beats anything cleverer.
func (o Order) Index(level uint64) (int, bool) {
	for i := 0; i < o.n; i++ {
		if o.levels[i] == level {
			return i, true
		}
	}
	return 0, false
}
