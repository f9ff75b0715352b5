package main

import (
	"sync"
	"testing"
)

// fakeObj stands in for a role wrapper.
type fakeObj struct{ released int }

func (*fakeObj) role() role  { return roleMsg }
func (f *fakeObj) release()  { f.released++ }
func (*otherObj) role() role { return roleTrust }
func (*otherObj) release()   {}

type otherObj struct{}

func TestHandleTableRejectsWhatItDidNotIssue(t *testing.T) {
	tab := newHandleTable()
	h := tab.insert(&fakeObj{})
	stale := h
	if _, err := tab.remove(h); err != nil {
		t.Fatal(err)
	}
	reissued := tab.insert(&fakeObj{}) // same slot, next generation
	if uint32(reissued) != uint32(stale) || reissued == stale {
		t.Fatalf("expected the slot reused under a new generation: %#x then %#x", stale, reissued)
	}
	cases := []struct {
		name string
		h    uint64
	}{
		{"zero", 0},
		{"stale (slot reused)", stale},
		{"slot out of range", uint64(1)<<32 | 999},
		{"generation never issued", reissued + 1<<32},
		{"slot zero with a generation", 1 << 32},
		{"all bits set", ^uint64(0)},
	}
	for _, c := range cases {
		if _, err := tab.get(c.h); codeOf(err) != codeBadHandle {
			t.Errorf("%s: get(%#x) = %v, want WEIDA_EBADHANDLE", c.name, c.h, err)
		}
		if _, err := tab.remove(c.h); codeOf(err) != codeBadHandle {
			t.Errorf("%s: remove(%#x) = %v, want WEIDA_EBADHANDLE", c.name, c.h, err)
		}
	}
	if _, err := tab.get(reissued); err != nil {
		t.Errorf("the live handle must still resolve: %v", err)
	}
	if tab.count() != 1 {
		t.Errorf("count = %d, want 1", tab.count())
	}
}

func TestHandleGenerationSkipsZero(t *testing.T) {
	tab := newHandleTable()
	h := tab.insert(&fakeObj{})
	tab.slots[uint32(h)].gen = ^uint32(0) // as if 2^32-1 handles had used the slot
	h = uint64(^uint32(0))<<32 | uint64(uint32(h))
	if _, err := tab.remove(h); err != nil {
		t.Fatal(err)
	}
	if next := tab.insert(&fakeObj{}); next>>32 != 1 {
		t.Errorf("after the generation wraps it restarts at 1, got handle %#x", next)
	}
}

func TestLookupChecksTheRole(t *testing.T) {
	saved := handles
	handles = newHandleTable()
	defer func() { handles = saved }()
	h := handles.insert(&otherObj{})
	if _, err := lookup[*fakeObj](h); codeOf(err) != codeBadHandle {
		t.Errorf("a trust handle used as a msg handle: %v, want WEIDA_EBADHANDLE", err)
	}
	if _, err := lookup[*otherObj](h); err != nil {
		t.Errorf("the right role must resolve: %v", err)
	}
}

func TestHandleTableUnderConcurrentUse(t *testing.T) {
	tab := newHandleTable()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				o := &fakeObj{}
				h := tab.insert(o)
				if got, err := tab.get(h); err != nil || got != o {
					t.Errorf("get(%#x) = %v, %v", h, got, err)
					return
				}
				if _, err := tab.remove(h); err != nil {
					t.Error(err)
					return
				}
				if _, err := tab.remove(h); codeOf(err) != codeBadHandle {
					t.Errorf("a second remove must fail, got %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if tab.count() != 0 {
		t.Errorf("count = %d after every remove", tab.count())
	}
}
