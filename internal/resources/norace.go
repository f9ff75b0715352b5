//go:build !race

package resources

// RaceDetector reports whether the binary runs under the race detector,
// whose shadow memory is resident and never given back: RSS figures then
// describe the detector, not the code under test.
const RaceDetector = false
