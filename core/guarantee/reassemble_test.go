package guarantee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// arrive feeds r one arrival (its item is its own label) and renders what
// it released as "scope:n", or "scope:n/missed" for a gap.
func arrive(t *testing.T, r *Reassembler[string, string], scope string, n uint64) string {
	t.Helper()
	var parts []string
	for _, rel := range r.Arrive(scope, n, fmt.Sprintf("%s:%d", scope, n), nil) {
		if want := fmt.Sprintf("%s:%d", rel.Scope, rel.Sequence); rel.Item != want {
			t.Fatalf("release %s carries item %s", want, rel.Item)
		}
		p := rel.Item
		if rel.Missed > 0 {
			p += fmt.Sprintf("/%d", rel.Missed)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestReassemblerReleasesInOrder(t *testing.T) {
	type step struct {
		scope    string
		n        uint64
		released string // "" = held
	}
	tests := []struct {
		name      string
		maxHold   int
		maxScopes int
		steps     []step
		held      int
	}{
		{"in order", 4, 4, []step{{"a", 0, "a:0"}, {"a", 1, "a:1"}, {"a", 2, "a:2"}}, 0},
		{"scrambled", 4, 4, []step{{"a", 2, ""}, {"a", 0, "a:0"}, {"a", 1, "a:1 a:2"}}, 0},
		{"reversed", 4, 4, []step{{"a", 3, ""}, {"a", 2, ""}, {"a", 1, ""}, {"a", 0, "a:0 a:1 a:2 a:3"}}, 0},
		{"every scope waits for 0", 4, 4, []step{{"a", 1, ""}, {"b", 0, "b:0"}, {"a", 0, "a:0 a:1"}}, 0},
		{"below the position passes through", 4, 4, []step{{"a", 0, "a:0"}, {"a", 1, "a:1"}, {"a", 0, "a:0"}}, 0},
		{"a repeat of a held number passes and the held one keeps its place", 4, 4,
			[]step{{"a", 2, ""}, {"a", 2, "a:2"}, {"a", 0, "a:0"}, {"a", 1, "a:1 a:2"}}, 0},
		{"at the cap the lowest number goes with its gap, then its run", 3, 4,
			[]step{{"a", 2, ""}, {"a", 3, ""}, {"a", 5, ""}, {"a", 6, "a:2/2 a:3"}, {"a", 4, "a:4 a:5 a:6"}}, 0},
		{"the cap holds when the hole never fills", 2, 4,
			[]step{{"a", 2, ""}, {"a", 4, ""}, {"a", 6, "a:2/2"}, {"a", 8, "a:4/1"}, {"a", 10, "a:6/1"}}, 2},
		{"the scope holding the most gives way", 4, 4,
			[]step{{"a", 5, ""}, {"b", 3, ""}, {"b", 4, ""}, {"b", 6, ""}, {"a", 7, "b:3/3 b:4"}}, 3},
		{"a tie goes to the scope holding the oldest arrival", 2, 4,
			[]step{{"b", 7, ""}, {"a", 3, ""}, {"c", 1, "b:7/7"}}, 2},
		{"a scope beyond the table is not tracked", 4, 1,
			[]step{{"a", 1, ""}, {"b", 5, "b:5"}, {"b", 4, "b:4"}, {"a", 0, "a:0 a:1"}}, 0},
		{"huge numbers hold one slot", 4, 4,
			[]step{{"a", math.MaxUint64, ""}, {"a", 1 << 63, ""}, {"a", 0, "a:0"}}, 2},
		{"the largest number ends its scope", 1, 4,
			[]step{{"a", math.MaxUint64, ""}, {"b", 1, "a:18446744073709551615/18446744073709551615"}, {"a", 0, "a:0"}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReassembler[string, string](tc.maxHold, tc.maxScopes)
			for i, st := range tc.steps {
				if got := arrive(t, r, st.scope, st.n); got != st.released {
					t.Fatalf("step %d (%s:%d): released %q, want %q", i, st.scope, st.n, got, st.released)
				}
				if r.Held() > tc.maxHold || r.Scopes() > tc.maxScopes {
					t.Fatalf("step %d: %d held over %d scopes, caps %d and %d", i, r.Held(), r.Scopes(), tc.maxHold, tc.maxScopes)
				}
			}
			if r.Held() != tc.held {
				t.Fatalf("%d still held, want %d", r.Held(), tc.held)
			}
		})
	}
}

// TestReassemblerUnderRandomOrder feeds seeded permutations of several
// scopes, with holes and repeats, and checks the invariants on every step:
// the hold stays under its cap, nothing is lost or invented, and within a
// scope every release either continues from the position (in order, or
// forced out with exactly the gap it skips) or is the arrival passing
// straight through.
func TestReassemblerUnderRandomOrder(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		const maxHold, perScope = 16, 200
		r := NewReassembler[int, int](maxHold, 8)
		var arrivals [][2]int // scope, number
		for scope := range 4 {
			for n := range perScope {
				if rng.IntN(10) == 0 {
					continue // a hole
				}
				arrivals = append(arrivals, [2]int{scope, n})
				if rng.IntN(20) == 0 {
					arrivals = append(arrivals, [2]int{scope, n}) // a repeat
				}
			}
		}
		// Local reordering only, as the network does: shuffle in windows.
		for lo := 0; lo < len(arrivals); lo += 24 {
			w := arrivals[lo:min(lo+24, len(arrivals))]
			rng.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		}
		released, forced := 0, 0
		position := map[int]uint64{} // per scope, the number it waits for
		for i, a := range arrivals {
			for j, rel := range r.Arrive(a[0], uint64(a[1]), a[1], nil) {
				released++
				pos := position[rel.Scope]
				switch {
				case int(rel.Sequence) != rel.Item:
					t.Fatalf("seed %d: release %d carries item %d", seed, rel.Sequence, rel.Item)
				case rel.Missed == 0 && rel.Sequence == pos:
					position[rel.Scope] = pos + 1 // in order
				case rel.Missed > 0 && rel.Sequence == pos+rel.Missed:
					position[rel.Scope] = rel.Sequence + 1 // forced out at the cap
					forced++
				case rel.Missed == 0 && j == 0 && int(rel.Sequence) == a[1]:
					// passed through: late, or a repeat of a held number
				default:
					t.Fatalf("seed %d, arrival %d: scope %d released %d missing %d at position %d",
						seed, i, rel.Scope, rel.Sequence, rel.Missed, pos)
				}
			}
			if r.Held() > maxHold {
				t.Fatalf("seed %d, arrival %d: %d held, cap %d", seed, i, r.Held(), maxHold)
			}
		}
		if released+r.Held() != len(arrivals) {
			t.Fatalf("seed %d: %d released + %d held != %d arrivals", seed, released, r.Held(), len(arrivals))
		}
		if r.Peak() > maxHold || forced == 0 {
			t.Fatalf("seed %d: peak %d, %d forced releases; want the cap reached and held", seed, r.Peak(), forced)
		}
	}
}

func TestReassemblerReleasesEachScopeInSequence(t *testing.T) {
	r := NewReassembler[string, int](MaxReorderHold, MaxSequenceScopes)
	var got []uint64
	for _, n := range []uint64{4, 1, 3, 0, 2, 6, 5} {
		for _, rel := range r.Arrive("a", n, int(n), nil) {
			got = append(got, rel.Sequence)
		}
	}
	if want := []uint64{0, 1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Fatalf("released %v, want %v", got, want)
	}
}
