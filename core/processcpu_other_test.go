//go:build !unix

package weida_test

import "time"

// processCPU is not measured here: the CPU metric is left out.
func processCPU() (time.Duration, bool) { return 0, false }
