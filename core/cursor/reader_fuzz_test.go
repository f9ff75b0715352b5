package cursor

import (
	"bytes"
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// FuzzReader feeds arbitrary bytes to a Reader bounded at maxOffset: it
// never panics, never returns a record beyond the bound, and drops
// exactly the records an unbounded reader returns beyond it.
func FuzzReader(f *testing.F) {
	f.Add(encode(wire.CursorRecord{Level: Processed, Offset: 10}, wire.CursorRecord{Level: Processed, Offset: 11}), uint64(10))
	f.Add([]byte{0x05}, uint64(0))
	f.Add(encode(wire.CursorRecord{Level: wire.MaxVarint, Offset: wire.MaxVarint}), uint64(wire.MaxVarint))
	f.Fuzz(func(t *testing.T, stream []byte, maxOffset uint64) {
		all, allErr := readAll(NewReader(bytes.NewReader(stream)))
		r := NewReader(bytes.NewReader(stream))
		r.SetMaxOffset(maxOffset)
		got, err := readAll(r)
		if (err == nil) != (allErr == nil) || (err != nil && err.Error() != allErr.Error()) {
			t.Fatalf("bounded reader ended with %v, unbounded with %v", err, allErr)
		}
		var want []wire.CursorRecord
		for _, rec := range all {
			if rec.Offset <= maxOffset {
				want = append(want, rec)
			}
		}
		if len(got) != len(want) || r.Beyond() != uint64(len(all)-len(want)) {
			t.Fatalf("%d records and %d dropped, want %d and %d", len(got), r.Beyond(), len(want), len(all)-len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("record %d: %v, want %v", i, got[i], want[i])
			}
		}
	})
}
