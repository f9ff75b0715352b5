package guarantee

import "testing"

func TestSequencerCountsEachScopeFromZero(t *testing.T) {
	s := NewSequencer[string](2)
	steps := []struct {
		scope    string
		want     uint64
		numbered bool
	}{
		{"a", 0, true},
		{"a", 1, true},
		{"b", 0, true},
		{"a", 2, true},
		{"c", 0, false}, // a third scope is beyond the table: unnumbered
		{"b", 1, true},  // known scopes keep counting
		{"c", 0, false},
	}
	for i, st := range steps {
		n, ok := s.Next(st.scope)
		if n != st.want || ok != st.numbered {
			t.Fatalf("step %d (%s): got %d, %v; want %d, %v", i, st.scope, n, ok, st.want, st.numbered)
		}
	}
	if s.Scopes() != 2 {
		t.Fatalf("scopes %d, want 2", s.Scopes())
	}
}
