package cursor

import (
	"slices"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

func TestNewOrderNormalises(t *testing.T) {
	seventeenWithRepeat := []uint64{1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 26}
	tests := []struct {
		name   string
		levels []uint64
		mode   Mode
		want   []uint64
	}{
		{name: "nothing ordered", levels: nil, want: []uint64{}},
		{name: "one named level", levels: []uint64{Processed}, want: []uint64{5}},
		{name: "sorted and de-duplicated", levels: []uint64{ApplicationFloor + 3, Processed, Processed, TransportReceipt}, want: []uint64{1, 5, 19}},
		{name: "None and the floor itself are legal", levels: []uint64{ApplicationFloor, None}, want: []uint64{0, 16}},
		{name: "the largest varint is a level", levels: []uint64{wire.MaxVarint}, want: []uint64{wire.MaxVarint}},
		{name: "seventeen with a repeat are sixteen", levels: seventeenWithRepeat, want: seventeenWithRepeat[:16]},
		{name: "final-only", levels: []uint64{Stored}, mode: FinalOnly, want: []uint64{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			given := slices.Clone(tt.levels)
			o, err := NewOrder(tt.levels, tt.mode)
			if err != nil {
				t.Fatalf("NewOrder(%v, %v) = %v", tt.levels, tt.mode, err)
			}
			if got := o.Levels(); !slices.Equal(got, tt.want) {
				t.Fatalf("levels %v, want %v", got, tt.want)
			}
			if o.Mode() != tt.mode || o.Len() != len(tt.want) || o.Empty() != (len(tt.want) == 0) {
				t.Fatalf("mode %v len %d empty %v", o.Mode(), o.Len(), o.Empty())
			}
			if !slices.Equal(tt.levels, given) {
				t.Fatalf("the caller's slice changed to %v", tt.levels)
			}
		})
	}
}

func TestNewOrderRefuses(t *testing.T) {
	seventeen := []uint64{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}
	tests := []struct {
		name   string
		levels []uint64
		mode   Mode
		want   string
	}{
		{name: "reserved level 7", levels: []uint64{Processed, 7}, want: "level 7 is reserved"},
		{name: "first reserved level", levels: []uint64{6}, want: "level 6 is reserved"},
		{name: "last reserved level", levels: []uint64{15}, want: "level 15 is reserved"},
		{name: "beyond the varint range", levels: []uint64{wire.MaxVarint + 1}, want: "exceeds the varint range"},
		{name: "seventeen distinct levels", levels: seventeen, want: "more than 16 distinct levels"},
		{name: "mode 9", levels: []uint64{Processed}, mode: 9, want: "mode 9 is neither"},
		{name: "mode 2 without levels", mode: 2, want: "mode 2 is neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewOrder(tt.levels, tt.mode)
			if errs.KindOf(err) != errs.KindProtocol || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewOrder(%v, %d) = %v, want a Protocol error containing %q", tt.levels, tt.mode, err, tt.want)
			}
		})
	}
}

func TestOrderIndexAndLevelsCopy(t *testing.T) {
	o, err := NewOrder([]uint64{ApplicationFloor + 1, Accepted, Processed}, Progress)
	if err != nil {
		t.Fatal(err)
	}
	for i, level := range []uint64{2, 5, 17} {
		if got, ok := o.Index(level); !ok || got != i || o.Level(i) != level {
			t.Fatalf("Index(%d) = %d, %v; Level(%d) = %d", level, got, ok, i, o.Level(i))
		}
	}
	if _, ok := o.Index(Stored); ok {
		t.Fatal("a level not ordered has an index")
	}
	levels := o.Levels()
	levels[0] = 99
	if o.Level(0) != Accepted {
		t.Fatal("Levels shares the order's storage")
	}
}

func TestModeNames(t *testing.T) {
	for m, want := range map[Mode]string{Progress: "Progress", FinalOnly: "FinalOnly", 9: "Mode(9)"} {
		if m.String() != want {
			t.Errorf("Mode(%d).String() = %q, want %q", uint64(m), m.String(), want)
		}
	}
}
