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

func TestSequencerPeekDrawsNothing(t *testing.T) {
	s := NewSequencer[string](1)
	for range 3 {
		if n, ok := s.Peek("a"); n != 0 || !ok {
			t.Fatalf("peek of a new scope: %d, %v; want 0, true", n, ok)
		}
	}
	if s.Scopes() != 0 {
		t.Fatalf("a peek took a scope: %d scopes", s.Scopes())
	}
	s.Next("a")
	if n, ok := s.Peek("a"); n != 1 || !ok {
		t.Fatalf("peek after one draw: %d, %v; want 1, true", n, ok)
	}
	if _, ok := s.Peek("b"); ok {
		t.Fatal("peek of a scope beyond the full table says it would be numbered")
	}
	if n, _ := s.Next("a"); n != 1 {
		t.Fatalf("the draw after the peeks: %d, want 1", n)
	}
}
