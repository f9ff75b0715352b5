//go:build !linux

package weida_test

// wireCount is not known off Linux.
func wireCount() (loBytes, udpSends float64, ok bool) { return 0, 0, false }
