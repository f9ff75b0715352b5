package wire

// Completion levels (PROTOCOL.md §8.6.1), shared by cursor records,
// report orders and DATA key 8.
const (
	LevelNone             uint64 = 0
	LevelTransportReceipt uint64 = 1
	LevelAccepted         uint64 = 2
	LevelStored           uint64 = 3
	LevelReplicated       uint64 = 4
	LevelProcessed        uint64 = 5
)

// LevelReserved reports whether level lies in the reserved range 6..=15.
func LevelReserved(level uint64) bool { return level >= 6 && level < ApplicationFloor }
