package cursor

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// event is what a fake stream saw: the records of one write, or the FIN.
type event struct {
	recs []wire.CursorRecord
	fin  bool
}

// fakeStream records every write and the close as events.
type fakeStream struct {
	events   chan event
	writeErr error
}

func (s *fakeStream) Write(p []byte) (int, error) {
	if s.writeErr != nil {
		return 0, s.writeErr
	}
	r := NewReader(bytes.NewReader(p))
	var recs [MaxLevels]wire.CursorRecord
	n, _ := r.Next(recs[:])
	s.events <- event{recs: slices.Clone(recs[:n])}
	return len(p), nil
}

func (s *fakeStream) Close() error {
	s.events <- event{fin: true}
	return nil
}

// harness is a writer over a fake stream, counting opens.
type harness struct {
	w      *Writer
	stream *fakeStream
	opens  atomic.Int32
}

func newHarness(t *testing.T, levels []uint64, mode Mode, g Granularity) *harness {
	t.Helper()
	o, err := NewOrder(levels, mode)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{stream: &fakeStream{events: make(chan event, 16)}}
	h.w = NewWriter(o, g, func() (io.WriteCloser, error) {
		h.opens.Add(1)
		return h.stream, nil
	})
	return h
}

func (h *harness) next(t *testing.T) event {
	t.Helper()
	select {
	case e := <-h.stream.events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("the writer wrote nothing")
		return event{}
	}
}

func (h *harness) expectRecords(t *testing.T, want ...wire.CursorRecord) {
	t.Helper()
	if e := h.next(t); e.fin || !slices.Equal(e.recs, want) {
		t.Fatalf("wrote %+v, want records %v", e, want)
	}
}

func (h *harness) expectFIN(t *testing.T) {
	t.Helper()
	if e := h.next(t); !e.fin {
		t.Fatalf("wrote %+v, want the FIN", e)
	}
	<-h.w.Done()
}

func (h *harness) mustReport(t *testing.T, level, offset uint64) {
	t.Helper()
	if err := h.w.Report(level, offset); err != nil {
		t.Fatalf("Report(%d, %d) = %v", level, offset, err)
	}
}

// never is an interval no test waits for.
const never = time.Hour

func TestWriterProgressEveryNBytes(t *testing.T) {
	h := newHarness(t, []uint64{Processed}, Progress, Granularity{Every: 100, Interval: never})
	h.mustReport(t, Processed, 99)
	// Below the byte step with the interval far away, nothing is due: the
	// writer started no goroutine, so nothing can have opened the stream.
	if h.opens.Load() != 0 {
		t.Fatal("the stream was opened before a record was due")
	}
	h.mustReport(t, Processed, 100)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 100})
	h.mustReport(t, Processed, 150)
	h.mustReport(t, Processed, 250)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 250})
	if err := h.w.Finish(); err != nil {
		t.Fatal(err)
	}
	h.expectFIN(t)
	if h.opens.Load() != 1 {
		t.Fatalf("opened %d streams, want 1", h.opens.Load())
	}
}

func TestWriterProgressKeepsOneRecordPerStep(t *testing.T) {
	h := newHarness(t, []uint64{Processed}, Progress, Granularity{Every: 100, Interval: never})
	h.mustReport(t, Processed, 120)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 120})
	// Only 80 bytes past the last record, but the second step is crossed:
	// the pace is one record per 100 bytes, not one per 100 bytes after a
	// record that happened to carry more.
	h.mustReport(t, Processed, 200)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 200})
}

// tryStream is a fakeStream that also takes writes without waiting, or
// refuses them all when full.
type tryStream struct {
	*fakeStream
	full  bool
	tried atomic.Int32 // writes taken by TryWrite
}

func (s *tryStream) TryWrite(p []byte) (bool, error) {
	if s.full {
		return false, nil
	}
	s.tried.Add(1)
	_, err := s.Write(p)
	return err == nil, err
}

func TestWriterWritesAtOnceOnAnOpenStream(t *testing.T) {
	for _, full := range []bool{false, true} {
		o, _ := NewOrder([]uint64{Processed}, Progress)
		s := &tryStream{fakeStream: &fakeStream{events: make(chan event, 16)}, full: full}
		w := NewWriter(o, Granularity{Every: 100, Interval: never}, func() (io.WriteCloser, error) {
			t.Error("an open stream was opened again")
			return nil, errors.New("opened twice")
		})
		// As after a first record: the stream is open, no goroutine runs.
		w.stream, w.opened = s, true
		h := &harness{w: w, stream: s.fakeStream}
		h.mustReport(t, Processed, 100)
		if !full && len(s.events) != 1 {
			t.Fatal("a record due on an open stream was not written before Report returned")
		}
		// Either way the record arrives: from Report, or from the writer's
		// goroutine when the stream would have made Report wait.
		h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 100})
		wantTried := int32(1)
		if full {
			wantTried = 0
		}
		if tried := s.tried.Load(); tried != wantTried {
			t.Fatalf("full %v: %d records taken without waiting, want %d", full, tried, wantTried)
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		h.expectFIN(t)
	}
}

func TestWriterProgressEveryInterval(t *testing.T) {
	h := newHarness(t, []uint64{Processed}, Progress, Granularity{Every: 1 << 40, Interval: time.Millisecond})
	h.mustReport(t, Processed, 5)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 5})
	h.mustReport(t, Processed, 6)
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 6})
	if err := h.w.Finish(); err != nil {
		t.Fatal(err)
	}
	h.expectFIN(t)
}

func TestWriterFinishFlushesTheLatestOffsets(t *testing.T) {
	h := newHarness(t, []uint64{Stored, Processed, ApplicationFloor + 3}, Progress, Granularity{Every: 1 << 40, Interval: never})
	h.mustReport(t, Stored, 10)
	h.mustReport(t, Stored, 30)
	h.mustReport(t, Stored, 20) // backwards: ignored
	h.mustReport(t, ApplicationFloor+3, 7)
	h.mustReport(t, Accepted, 99) // not ordered: ignored
	if err := h.w.Finish(); err != nil {
		t.Fatal(err)
	}
	// Processed was ordered and never reported: it stays absent.
	h.expectRecords(t, wire.CursorRecord{Level: Stored, Offset: 30}, wire.CursorRecord{Level: ApplicationFloor + 3, Offset: 7})
	h.expectFIN(t)
}

func TestWriterDueLevelCarriesTheOthers(t *testing.T) {
	h := newHarness(t, []uint64{Stored, Processed}, Progress, Granularity{Every: 100, Interval: never})
	h.mustReport(t, Stored, 10)
	h.mustReport(t, Processed, 100)
	h.expectRecords(t, wire.CursorRecord{Level: Stored, Offset: 10}, wire.CursorRecord{Level: Processed, Offset: 100})
}

func TestWriterFinalOnlyWritesOnceAtFinish(t *testing.T) {
	h := newHarness(t, []uint64{Processed, ApplicationFloor}, FinalOnly, Granularity{Every: 1, Interval: time.Nanosecond})
	h.mustReport(t, Processed, 10)
	h.mustReport(t, Processed, 1<<30)
	h.mustReport(t, ApplicationFloor, 3)
	// Even at the finest granularity a final-only report starts nothing
	// before Finish: no goroutine exists that could open the stream.
	if h.opens.Load() != 0 {
		t.Fatal("a final-only report opened its stream before Finish")
	}
	if err := h.w.Finish(); err != nil {
		t.Fatal(err)
	}
	h.expectRecords(t, wire.CursorRecord{Level: Processed, Offset: 1 << 30}, wire.CursorRecord{Level: ApplicationFloor, Offset: 3})
	h.expectFIN(t)
}

func TestWriterWithNothingToReportOpensNothing(t *testing.T) {
	for _, mode := range []Mode{Progress, FinalOnly} {
		h := newHarness(t, []uint64{Processed}, mode, Granularity{})
		h.mustReport(t, Stored, 10) // not ordered
		if err := h.w.Finish(); err != nil {
			t.Fatal(err)
		}
		<-h.w.Done()
		if h.opens.Load() != 0 {
			t.Fatalf("%v: a report with nothing to say opened a stream", mode)
		}
	}
}

func TestWriterMisuse(t *testing.T) {
	h := newHarness(t, []uint64{Processed}, Progress, Granularity{})
	if err := h.w.Report(Processed, wire.MaxVarint+1); errs.KindOf(err) != errs.KindProtocol {
		t.Fatalf("offset beyond the varint range: %v, want Protocol", err)
	}
	if err := h.w.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := h.w.Finish(); errs.KindOf(err) != errs.KindNoReply {
		t.Fatalf("second Finish: %v, want NoReply", err)
	}
	if err := h.w.Report(Processed, 1); errs.KindOf(err) != errs.KindNoReply {
		t.Fatalf("Report after Finish: %v, want NoReply", err)
	}
}

func TestWriterFailureEndsTheReportSilently(t *testing.T) {
	tests := []struct {
		name string
		open func(*fakeStream) (io.WriteCloser, error)
	}{
		{name: "the stream cannot be opened", open: func(*fakeStream) (io.WriteCloser, error) {
			return nil, errors.New("connection lost")
		}},
		{name: "the write fails", open: func(s *fakeStream) (io.WriteCloser, error) {
			s.writeErr = errors.New("stopped by the peer")
			return s, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _ := NewOrder([]uint64{Processed}, Progress)
			s := &fakeStream{events: make(chan event, 4)}
			var opens atomic.Int32
			w := NewWriter(o, Granularity{Every: 1, Interval: never}, func() (io.WriteCloser, error) {
				opens.Add(1)
				return tt.open(s)
			})
			if err := w.Report(Processed, 1); err != nil {
				t.Fatal(err)
			}
			<-w.Done() // the failure ended the report
			if err := w.Report(Processed, 2); err != nil {
				t.Fatalf("Report after a failure: %v, want it ignored", err)
			}
			if err := w.Finish(); err != nil {
				t.Fatalf("Finish after a failure: %v", err)
			}
			if opens.Load() != 1 || len(s.events) != 0 {
				t.Fatalf("%d opens and %d events after the failure, want 1 and 0", opens.Load(), len(s.events))
			}
		})
	}
}

func TestWriterNeverWaitsForTheStream(t *testing.T) {
	o, _ := NewOrder([]uint64{Processed}, Progress)
	credit := make(chan struct{})
	s := &fakeStream{events: make(chan event, 4)}
	w := NewWriter(o, Granularity{Every: 1, Interval: never}, func() (io.WriteCloser, error) {
		<-credit // the peer grants no stream credit yet
		return s, nil
	})
	// Each call returns while the open is stuck.
	for offset := uint64(1); offset <= 3; offset++ {
		if err := w.Report(Processed, offset); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	close(credit)
	var got []wire.CursorRecord
	for e := range s.events {
		if e.fin {
			break
		}
		got = append(got, e.recs...)
	}
	if last := got[len(got)-1]; last != (wire.CursorRecord{Level: Processed, Offset: 3}) {
		t.Fatalf("records %v, want the last to be the latest offset 3", got)
	}
	<-w.Done()
}
