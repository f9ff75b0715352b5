package cursor

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/weida-go/weida/core/wire"
)

// encode appends recs as a writer puts them on the wire.
func encode(recs ...wire.CursorRecord) []byte {
	var b []byte
	for _, r := range recs {
		b = wire.AppendCursorRecord(b, r)
	}
	return b
}

// readAll drains r with a small batch, as a report's reader does.
func readAll(r *Reader) ([]wire.CursorRecord, error) {
	var got []wire.CursorRecord
	var batch [3]wire.CursorRecord
	for {
		n, err := r.Next(batch[:])
		got = append(got, batch[:n]...)
		if err != nil {
			return got, err
		}
	}
}

func TestReaderParsesWhateverTheReadBoundaries(t *testing.T) {
	recs := []wire.CursorRecord{
		{Level: Processed, Offset: 0},
		{Level: Stored, Offset: 63},
		{Level: Stored, Offset: 16383},
		{Level: ApplicationFloor + 3, Offset: 1 << 29},
		{Level: wire.MaxVarint, Offset: wire.MaxVarint}, // the longest record, 16 bytes
	}
	// Enough records to wrap the 64-byte buffer many times.
	var many []wire.CursorRecord
	for i := range 100 {
		many = append(many, recs[i%len(recs)])
	}
	stream := encode(many...)
	sources := []struct {
		name string
		src  func() io.Reader
	}{
		{"whole", func() io.Reader { return bytes.NewReader(stream) }},
		{"one byte per read", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(stream)) }},
		{"half buffers", func() io.Reader { return iotest.HalfReader(bytes.NewReader(stream)) }},
		{"EOF with the last bytes", func() io.Reader { return iotest.DataErrReader(bytes.NewReader(stream)) }},
	}
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			r := NewReader(s.src())
			got, err := readAll(r)
			if err != io.EOF {
				t.Fatalf("ended with %v, want io.EOF", err)
			}
			if !slices.Equal(got, many) {
				t.Fatalf("read %d records, want %d (first %v)", len(got), len(many), got[:min(len(got), 3)])
			}
			if r.BytesRead() != uint64(len(stream)) {
				t.Fatalf("BytesRead = %d, want %d", r.BytesRead(), len(stream))
			}
		})
	}
}

func TestReaderViolations(t *testing.T) {
	whole := encode(wire.CursorRecord{Level: Processed, Offset: 1 << 20})
	tests := []struct {
		name   string
		stream []byte
		before int // whole records delivered before the violation
		want   string
	}{
		{name: "FIN after the level", stream: append(slices.Clone(whole), byte(Processed)), before: 1, want: "cut off by FIN after 1 bytes"},
		{name: "FIN inside the offset", stream: whole[:3], want: "cut off by FIN after 3 bytes"},
		{name: "reserved level", stream: append(slices.Clone(whole), encode(wire.CursorRecord{Level: 7, Offset: 1})...), before: 1, want: "level 7 is reserved"},
		{name: "reserved level 15 alone", stream: encode(wire.CursorRecord{Level: 15}), want: "level 15 is reserved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(iotest.OneByteReader(bytes.NewReader(tt.stream)))
			got, err := readAll(r)
			if !errors.Is(err, wire.ErrProtocolViolation) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ended with %v, want a violation containing %q", err, tt.want)
			}
			if len(got) != tt.before {
				t.Fatalf("%d records before the violation, want %d", len(got), tt.before)
			}
			if n, again := r.Next(make([]wire.CursorRecord, 4)); n != 0 || again != err {
				t.Fatalf("after the violation Next = %d, %v; want 0 and the same error", n, again)
			}
		})
	}
}

func TestReaderPassesStreamErrorsAfterTheirRecords(t *testing.T) {
	reset := errors.New("stream reset by the peer")
	whole := encode(wire.CursorRecord{Level: Processed, Offset: 9})
	// The reset arrives with a whole record and half of the next one: the
	// whole one still counts, the half one is dropped without a violation.
	src := io.MultiReader(bytes.NewReader(append(slices.Clone(whole), byte(Stored))), iotest.ErrReader(reset))
	got, err := readAll(NewReader(src))
	if err != reset {
		t.Fatalf("ended with %v, want the stream's own error", err)
	}
	if len(got) != 1 || got[0] != (wire.CursorRecord{Level: Processed, Offset: 9}) {
		t.Fatalf("records %v, want the one whole record", got)
	}
}

func TestReaderWithEmptyBatchReadsNothing(t *testing.T) {
	r := NewReader(iotest.ErrReader(errors.New("must not be read")))
	if n, err := r.Next(nil); n != 0 || err != nil {
		t.Fatalf("Next(nil) = %d, %v", n, err)
	}
}

// endless serves the same block of records forever.
type endless struct {
	block []byte
	at    int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.block[e.at:])
	e.at = (e.at + n) % len(e.block)
	return n, nil
}

func TestReaderFloodAllocatesNothingPerRecord(t *testing.T) {
	order, err := NewOrder([]uint64{Stored, Processed}, Progress)
	if err != nil {
		t.Fatal(err)
	}
	var recs []wire.CursorRecord
	for i := range 64 {
		// Mostly backwards and repeated records, and levels never ordered:
		// the hostile mix a flood would be.
		recs = append(recs, wire.CursorRecord{Level: []uint64{Stored, Processed, Accepted, ApplicationFloor}[i%4], Offset: uint64(1000 - i)})
	}
	r := NewReader(&endless{block: encode(recs...)})
	offsets := NewOffsets(order)
	var batch [16]wire.CursorRecord
	applied := 0
	allocs := testing.AllocsPerRun(1000, func() {
		n, err := r.Next(batch[:])
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range batch[:n] {
			offsets.Apply(rec)
		}
		applied += n
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per batch of records, want 0", allocs)
	}
	if applied < 1000 {
		t.Fatalf("only %d records applied", applied)
	}
	if got, _ := offsets.Offset(Processed); got != 999 {
		t.Fatalf("Processed at %d, want the maximum 999", got)
	}
}

func TestReaderDropsRecordsBeyondTheTransfersLength(t *testing.T) {
	recs := []wire.CursorRecord{
		{Level: Processed, Offset: 10},
		{Level: Processed, Offset: 11}, // one past a 10-byte transfer
		{Level: Stored, Offset: wire.MaxVarint},
		{Level: Stored, Offset: 4},
	}
	r := NewReader(iotest.OneByteReader(bytes.NewReader(encode(recs...))))
	r.SetMaxOffset(10)
	got, err := readAll(r)
	if err != io.EOF {
		t.Fatalf("read ended with %v, want a clean EOF: an offset past the length is no violation", err)
	}
	if want := []wire.CursorRecord{recs[0], recs[3]}; !slices.Equal(got, want) {
		t.Fatalf("records %v, want %v", got, want)
	}
	if r.Beyond() != 2 {
		t.Fatalf("Beyond() = %d, want 2", r.Beyond())
	}
	// Without a bound every encodable offset is read (the default).
	all, _ := readAll(NewReader(bytes.NewReader(encode(recs...))))
	if !slices.Equal(all, recs) {
		t.Fatalf("unbounded reader returned %v", all)
	}
}
