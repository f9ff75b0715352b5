package store

import (
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// Durability is the level at which a queue certifies an admitted message
// (BROKER.md §13.1). It is per-queue configuration, never per message.
type Durability int

// The durability levels, weakest first.
const (
	// Memory means no store at all: the broker keeps bodies in RAM and may
	// never report Stored. It is never used with this package's Queue.
	Memory Durability = iota
	// Written certifies once write(2) of the payload (if the body is not
	// inline) and of its ADMIT record returned: the message survives a
	// broker crash, not an OS crash.
	Written
	// Flushed certifies once fsync of the payload file and its directory (if
	// the body is not inline) and of the journal returned (group-committed):
	// the message survives power loss.
	Flushed
)

var durabilityNames = [...]string{Memory: "memory", Written: "written", Flushed: "flushed"}

// ParseDurability reads a configuration value: "memory", "written" or "flushed".
func ParseDurability(s string) (Durability, error) {
	for d, name := range durabilityNames {
		if s == name {
			return Durability(d), nil
		}
	}
	return Memory, errs.New(errs.KindRuntime,
		"store: unknown durability %q (want memory, written or flushed)", s)
}

// String returns the configuration spelling, e.g. "flushed".
func (d Durability) String() string {
	if d >= 0 && int(d) < len(durabilityNames) {
		return durabilityNames[d]
	}
	return fmt.Sprintf("Durability(%d)", int(d))
}
