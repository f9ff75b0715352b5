package guarantee

import (
	"testing"
	"time"
)

func TestDeduplicatorWindow(t *testing.T) {
	type event struct {
		scope  string
		n      uint64
		at     time.Duration // since the start
		repeat bool
	}
	const window = 10 * time.Second
	tests := []struct {
		name       string
		maxEntries int
		events     []event
	}{
		{"a repeat inside the window", 8, []event{{"a", 1, 0, false}, {"a", 1, 9 * time.Second, true}}},
		{"a repeat after the window passes", 8, []event{{"a", 1, 0, false}, {"a", 1, window, false}, {"a", 1, window + time.Second, true}}},
		{"a repeat does not renew the window", 8,
			[]event{{"a", 1, 0, false}, {"a", 1, 6 * time.Second, true}, {"a", 1, 11 * time.Second, false}}},
		{"scopes and numbers are separate identities", 8,
			[]event{{"a", 1, 0, false}, {"b", 1, 0, false}, {"a", 2, 0, false}, {"b", 1, time.Second, true}}},
		{"at the cap the oldest is forgotten", 2,
			[]event{{"a", 1, 0, false}, {"a", 2, 0, false}, {"a", 3, 0, false}, {"a", 1, 0, false}, {"a", 3, 0, true}}},
		{"expiry and the cap together", 2,
			[]event{{"a", 1, 0, false}, {"a", 2, 5 * time.Second, false}, {"a", 3, 12 * time.Second, false}, {"a", 2, 13 * time.Second, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			d := NewDeduplicator[string](window, tc.maxEntries)
			for i, e := range tc.events {
				if got := d.Repeat(e.scope, e.n, start.Add(e.at)); got != e.repeat {
					t.Fatalf("event %d (%s %d at %v): repeat %v, want %v", i, e.scope, e.n, e.at, got, e.repeat)
				}
				if d.Len() > tc.maxEntries {
					t.Fatalf("event %d: %d remembered, cap %d", i, d.Len(), tc.maxEntries)
				}
			}
		})
	}
}

// TestDeduplicatorFloods drives the ring through growth, wrap-around and
// the cap with many distinct identities, then floods it with one repeat.
func TestDeduplicatorFloods(t *testing.T) {
	now := time.Now()
	d := NewDeduplicator[int](time.Hour, MaxDedupEntries)
	const distinct = 3 * MaxDedupEntries
	for n := range uint64(distinct) {
		if d.Repeat(0, n, now) {
			t.Fatalf("identity %d reported a repeat on its first arrival", n)
		}
		if d.Len() > MaxDedupEntries {
			t.Fatalf("%d remembered, cap %d", d.Len(), MaxDedupEntries)
		}
	}
	for n := uint64(distinct - MaxDedupEntries); n < distinct; n++ {
		if !d.Repeat(0, n, now) {
			t.Fatalf("identity %d, among the newest %d, was forgotten", n, MaxDedupEntries)
		}
	}
	if d.Repeat(0, distinct-MaxDedupEntries-1, now) {
		t.Fatal("an identity evicted at the cap is still remembered")
	}
	for range 10000 {
		if !d.Repeat(0, distinct-1, now) {
			t.Fatal("a flooded repeat passed")
		}
	}
	if d.Len() != MaxDedupEntries {
		t.Fatalf("%d remembered after the flood, want %d", d.Len(), MaxDedupEntries)
	}
}
