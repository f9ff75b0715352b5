package cursor

import (
	"strconv"

	"github.com/weida-go/weida/core/wire"
)

// The level space of PROTOCOL.md §8.6.1, shared by report orders (DATA key
// 10) and CURSOR records. Levels are plain integers because the space is
// open: an application names its own stages from ApplicationFloor up.
const (
	// None is legal in an order and carries nothing.
	None uint64 = 0
	// TransportReceipt may be ordered and reported by a receiver; the
	// library never synthesizes it (decision 0023 §4.1).
	TransportReceipt uint64 = 1
	// Accepted: a hop took responsibility for the message in memory.
	Accepted uint64 = 2
	// Stored: the store holds the bytes up to the offset.
	Stored uint64 = 3
	// Replicated: the bytes up to the offset are replicated.
	Replicated uint64 = 4
	// Processed: the consuming application settled the bytes up to the
	// offset ("you may forget up to N").
	Processed uint64 = 5
	// ApplicationFloor is the first level an application may name.
	ApplicationFloor = wire.ApplicationFloor
)

// MaxLevels is the most levels one order may hold.
const MaxLevels = wire.MaxReportLevels

// Reserved reports whether level lies in 6..15, the range later versions of
// the protocol will name. Ordering one, or reading one in a record, is a
// protocol violation.
func Reserved(level uint64) bool { return wire.LevelReserved(level) }

// Mode says when a receiver writes its records (DATA key 11).
type Mode uint64

const (
	// Progress writes records as levels advance, at the reporter's
	// granularity, and the latest offsets before the end. The default.
	Progress Mode = 0
	// FinalOnly writes exactly one record per reported level, at the end.
	FinalOnly Mode = 1
)

// String names the mode for messages.
func (m Mode) String() string {
	switch m {
	case Progress:
		return "Progress"
	case FinalOnly:
		return "FinalOnly"
	}
	return "Mode(" + strconv.FormatUint(uint64(m), 10) + ")"
}
