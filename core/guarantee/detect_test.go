package guarantee

import (
	"math"
	"testing"
)

func TestDetectorReportsGaps(t *testing.T) {
	type arrival struct {
		scope  string
		n      uint64
		missed uint64
	}
	tests := []struct {
		name     string
		arrivals []arrival
	}{
		{"in order", []arrival{{"a", 0, 0}, {"a", 1, 0}, {"a", 2, 0}}},
		{"the first number sets the position", []arrival{{"a", 7, 0}, {"a", 8, 0}}},
		{"a gap is reported once, with the later transfer", []arrival{{"a", 0, 0}, {"a", 3, 2}, {"a", 4, 0}}},
		{"a late arrival below the position is no gap and moves nothing", []arrival{{"a", 0, 0}, {"a", 2, 1}, {"a", 1, 0}, {"a", 3, 0}}},
		{"backwards", []arrival{{"a", 9, 0}, {"a", 8, 0}, {"a", 7, 0}, {"a", 10, 0}}},
		{"a repeat is no gap", []arrival{{"a", 0, 0}, {"a", 0, 0}, {"a", 1, 0}}},
		{"scopes are independent", []arrival{{"a", 0, 0}, {"b", 5, 0}, {"a", 2, 1}, {"b", 6, 0}}},
		{"huge gaps do not overflow", []arrival{{"a", 0, 0}, {"a", math.MaxUint64, math.MaxUint64 - 1}, {"a", 5, 0}}},
		{"the largest number first", []arrival{{"a", math.MaxUint64, 0}, {"a", math.MaxUint64, 0}, {"a", 0, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDetector[string](MaxSequenceScopes)
			for i, a := range tc.arrivals {
				if got := d.Observe(a.scope, a.n); got != a.missed {
					t.Fatalf("arrival %d (%s %d): missed %d, want %d", i, a.scope, a.n, got, a.missed)
				}
			}
		})
	}
}

func TestDetectorTracksAtMostItsScopes(t *testing.T) {
	d := NewDetector[int](3)
	for scope := range 10 {
		d.Observe(scope, 0)
		if missed := d.Observe(scope, 5); scope < 3 && missed != 4 || scope >= 3 && missed != 0 {
			t.Fatalf("scope %d: missed %d", scope, missed)
		}
	}
	if d.Scopes() != 3 {
		t.Fatalf("scopes %d, want 3", d.Scopes())
	}
}
