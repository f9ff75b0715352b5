package cursor

import (
	"maps"
	"testing"

	"github.com/weida-go/weida/core/wire"
)

func TestOffsetsKeepTheMaximum(t *testing.T) {
	order, err := NewOrder([]uint64{Stored, Processed, ApplicationFloor + 3}, Progress)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		rec     wire.CursorRecord
		changed bool
	}
	tests := []struct {
		name  string
		steps []step
		want  map[uint64]uint64
	}{
		{name: "nothing reported", want: map[uint64]uint64{}},
		{name: "first record at offset zero is a change",
			steps: []step{{wire.CursorRecord{Level: Processed}, true}},
			want:  map[uint64]uint64{Processed: 0}},
		{name: "forward moves, repeat and backwards do not",
			steps: []step{
				{wire.CursorRecord{Level: Processed, Offset: 10}, true},
				{wire.CursorRecord{Level: Processed, Offset: 10}, false},
				{wire.CursorRecord{Level: Processed, Offset: 4}, false},
				{wire.CursorRecord{Level: Processed, Offset: 11}, true},
			},
			want: map[uint64]uint64{Processed: 11}},
		{name: "reordered records end at the maximum",
			steps: []step{
				{wire.CursorRecord{Level: Stored, Offset: 300}, true},
				{wire.CursorRecord{Level: Stored, Offset: 100}, false},
				{wire.CursorRecord{Level: Stored, Offset: 200}, false},
			},
			want: map[uint64]uint64{Stored: 300}},
		{name: "levels advance independently",
			steps: []step{
				{wire.CursorRecord{Level: Stored, Offset: 50}, true},
				{wire.CursorRecord{Level: ApplicationFloor + 3, Offset: 1 << 40}, true},
				{wire.CursorRecord{Level: Processed, Offset: 20}, true},
			},
			want: map[uint64]uint64{Stored: 50, Processed: 20, ApplicationFloor + 3: 1 << 40}},
		{name: "a level never ordered is ignored",
			steps: []step{
				{wire.CursorRecord{Level: Accepted, Offset: 5}, false},
				{wire.CursorRecord{Level: ApplicationFloor, Offset: 5}, false},
			},
			want: map[uint64]uint64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewOffsets(order)
			for i, st := range tt.steps {
				if got := s.Apply(st.rec); got != st.changed {
					t.Fatalf("step %d: Apply(%+v) changed = %v, want %v", i, st.rec, got, st.changed)
				}
			}
			if got := s.Snapshot(); !maps.Equal(got, tt.want) {
				t.Fatalf("snapshot %v, want %v", got, tt.want)
			}
			for _, level := range []uint64{Accepted, Stored, Processed, ApplicationFloor + 3} {
				want, wantOK := tt.want[level]
				if got, ok := s.Offset(level); got != want || ok != wantOK {
					t.Fatalf("Offset(%d) = %d, %v; want %d, %v", level, got, ok, want, wantOK)
				}
			}
		})
	}
}

func TestOffsetsCountRecordsForLevelsNotOrdered(t *testing.T) {
	order, err := NewOrder([]uint64{Processed}, Progress)
	if err != nil {
		t.Fatal(err)
	}
	s := NewOffsets(order)
	for _, rec := range []wire.CursorRecord{{Level: Stored, Offset: 3}, {Level: Processed, Offset: 3}, {Level: ApplicationFloor, Offset: 1}} {
		s.Apply(rec)
	}
	if got := s.Snapshot(); !maps.Equal(got, map[uint64]uint64{Processed: 3}) || s.Stray() != 2 {
		t.Fatalf("snapshot %v, %d stray; want Processed at 3 and 2 stray records", got, s.Stray())
	}
}
