package main

import (
	"fmt"
	"sync"
)

// object is what a handle names: one role's wrapper around a Go value.
// release runs once, when the handle is closed (or, for an op, completed).
type object interface {
	role() role
	release()
}

// handleTable maps handles to objects. A handle is a 32-bit slot index (low
// half) and the slot's 32-bit generation (high half); the generation moves
// on every release, so a stale handle never reaches the slot's next object,
// and a forged one fails the range or generation check. Slot 0 is never
// used, so the zero handle is never valid. C never holds a Go pointer: the
// table is the only way from a number back to a value.
type handleTable struct {
	mu    sync.RWMutex
	slots []tableSlot // slots[0] is the unused sentinel
	free  []uint32
	live  int
}

type tableSlot struct {
	gen uint32 // never 0 for an issued handle
	obj object // nil while free
}

func newHandleTable() *handleTable {
	return &handleTable{slots: make([]tableSlot, 1, 64)}
}

// handles is the process's one table.
var handles = newHandleTable()

// insert stores o and returns its new handle.
func (t *handleTable) insert(o object) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var idx uint32
	if n := len(t.free); n > 0 {
		idx = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		idx = uint32(len(t.slots))
		t.slots = append(t.slots, tableSlot{gen: 1})
	}
	t.slots[idx].obj = o
	t.live++
	return uint64(t.slots[idx].gen)<<32 | uint64(idx)
}

// get returns the object h names.
func (t *handleTable) get(h uint64) (object, error) {
	idx, gen := uint32(h), uint32(h>>32)
	t.mu.RLock()
	defer t.mu.RUnlock()
	if idx == 0 || int(idx) >= len(t.slots) || t.slots[idx].gen != gen || t.slots[idx].obj == nil {
		return nil, badHandle(h)
	}
	return t.slots[idx].obj, nil
}

// remove takes h's object out of the table; the caller releases it. Only
// one of several concurrent removes of the same handle succeeds.
func (t *handleTable) remove(h uint64) (object, error) {
	idx, gen := uint32(h), uint32(h>>32)
	t.mu.Lock()
	defer t.mu.Unlock()
	if idx == 0 || int(idx) >= len(t.slots) || t.slots[idx].gen != gen || t.slots[idx].obj == nil {
		return nil, badHandle(h)
	}
	s := &t.slots[idx]
	o := s.obj
	s.obj = nil
	s.gen++
	if s.gen == 0 { // wrapped: 0 is never issued
		s.gen = 1
	}
	t.free = append(t.free, idx)
	t.live--
	return o, nil
}

// count is the number of live handles.
func (t *handleTable) count() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.live
}

func badHandle(h uint64) error {
	if h == 0 {
		return abiErr(codeBadHandle, "the handle is 0, which is never valid")
	}
	return abiErr(codeBadHandle, fmt.Sprintf("handle %#x is closed, stale or was never issued", h))
}

// lookup returns the object h names if it has the role T stands for.
func lookup[T object](h uint64) (T, error) {
	var zero T
	o, err := handles.get(h)
	if err != nil {
		return zero, err
	}
	v, ok := o.(T)
	if !ok {
		return zero, abiErr(codeBadHandle, fmt.Sprintf("handle %#x is a %s handle, not a %s handle", h, o.role(), zero.role()))
	}
	return v, nil
}
