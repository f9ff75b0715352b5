package store

import (
	"os"
	"testing"
)

func TestReadCellPicksNewestValidSlot(t *testing.T) {
	older := checkpoint{generation: 3, lowWater: 10, nextSeq: 20}
	newer := checkpoint{generation: 4, lowWater: 15, nextSeq: 25}
	damaged := func(c checkpoint) []byte {
		b := c.encode()
		b[9] ^= 1
		return b
	}
	tests := []struct {
		name         string
		slot0, slot1 []byte // nil = no file; slot = generation % 2
		want         checkpoint
	}{
		{"both valid", newer.encode(), older.encode(), newer},
		{"newer slot corrupt", damaged(newer), older.encode(), older},
		{"older slot corrupt", newer.encode(), damaged(older), newer},
		{"newer slot torn short", newer.encode()[:10], older.encode(), older},
		{"newer slot empty", []byte{}, older.encode(), older},
		{"only one slot written", nil, older.encode(), older},
		{"both corrupt", damaged(newer), damaged(older), checkpoint{}},
		{"no cell yet", nil, nil, checkpoint{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for slot, b := range [][]byte{tc.slot0, tc.slot1} {
				if b != nil {
					if err := os.WriteFile(cellPath(dir, uint64(slot)), b, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := readCell(OSFS{}, dir)
			if err != nil || got != tc.want {
				t.Fatalf("readCell = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestWriteCellAlternatesSlots(t *testing.T) {
	dir := t.TempDir()
	for gen := uint64(1); gen <= 4; gen++ {
		c := checkpoint{generation: gen, lowWater: gen * 10, nextSeq: gen * 10}
		if err := writeCell(OSFS{}, dir, c); err != nil {
			t.Fatal(err)
		}
		got, err := readCell(OSFS{}, dir)
		if err != nil || got != c {
			t.Fatalf("after writing generation %d: readCell = %+v, %v", gen, got, err)
		}
		prev, _ := os.ReadFile(cellPath(dir, gen-1))
		if old, ok := decodeCell(prev); gen > 1 && (!ok || old.generation != gen-1) {
			t.Fatalf("writing generation %d overwrote the other slot (it holds %+v, valid %v)", gen, old, ok)
		}
	}
}
