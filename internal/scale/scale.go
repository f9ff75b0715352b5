// Package scale picks the size of an end-to-end test run. The test command
// (go test ./...) runs the light versions, which keep every package under
// tests/ fast under -race; build/soak.sh sets WEIDA_HEAVY=1 for the full
// sizes of docs/RELIABILITY.md, and WEIDA_SOAK for the soak's duration.
package scale

import (
	"os"
	"time"
)

// Heavy reports whether the heavy command asked for the full sizes.
func Heavy() bool { return os.Getenv("WEIDA_HEAVY") == "1" }

// Pick returns light in the test command and heavy under WEIDA_HEAVY=1.
func Pick[T any](light, heavy T) T {
	if Heavy() {
		return heavy
	}
	return light
}

// DefaultSoak is the soak's duration when WEIDA_SOAK does not name one.
const DefaultSoak = 10 * time.Minute

// Soak is how long the soak runs: WEIDA_SOAK (a Go duration such as "2m")
// or DefaultSoak. ok is false outside the heavy command, where the soak is
// skipped.
func Soak() (d time.Duration, ok bool, err error) {
	if !Heavy() {
		return 0, false, nil
	}
	v := os.Getenv("WEIDA_SOAK")
	if v == "" {
		return DefaultSoak, true, nil
	}
	d, err = time.ParseDuration(v)
	return d, err == nil, err
}
