//go:build race

package main

// A race-enabled test run builds the binary under test with the race
// detector too, so a race in the CLI fails the subprocess tests (exit 66).
func init() { binaryBuildFlags = append(binaryBuildFlags, "-race") }
