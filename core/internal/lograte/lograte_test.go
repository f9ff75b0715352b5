package lograte

import (
	"testing"
	"time"
)

func TestGateBoundsABurstAndCountsWhatItHeldBack(t *testing.T) {
	clock := time.Unix(1000, 0)
	g := &Gate{Burst: 3, Interval: time.Second, Now: func() time.Time { return clock }}
	passed := 0
	for range 100 {
		if ok, held := g.Allow(); ok {
			passed++
			if held != 0 {
				t.Fatalf("a line in the first burst reports %d held back", held)
			}
		}
	}
	if passed != 3 {
		t.Fatalf("%d of 100 lines passed in one interval, want 3", passed)
	}
	clock = clock.Add(time.Second)
	ok, held := g.Allow()
	if !ok || held != 97 {
		t.Fatalf("next interval: ok=%v held=%d, want true and 97", ok, held)
	}
	if ok, held := g.Allow(); !ok || held != 0 {
		t.Fatalf("second line of the interval: ok=%v held=%d, want true and 0", ok, held)
	}
}

func TestGateZeroValueUsesTheDefaults(t *testing.T) {
	clock := time.Unix(1000, 0)
	g := &Gate{Now: func() time.Time { return clock }}
	passed := 0
	for range 50 {
		if ok, _ := g.Allow(); ok {
			passed++
		}
	}
	if passed != DefaultBurst {
		t.Fatalf("%d passed, want %d", passed, DefaultBurst)
	}
}
