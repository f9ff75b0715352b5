package wire

import (
	"errors"
	"reflect"
	"testing"
)

func TestCursorHead(t *testing.T) {
	for _, id := range []uint64{1, 1 << 40} {
		c := CursorHead{ReportID: id}
		if got, err := DecodeCursorHead(c.AppendHeader(nil)); err != nil || got != c {
			t.Errorf("report_id %d: %+v, %v", id, got, err)
		}
	}
	for _, v := range []struct{ hex, want string }{
		{"A0", "CURSOR head key 0 (report_id) is required but missing"},
		{"A1 00 40", "CURSOR head key 0 (report_id): expected uint, got byte string"},
	} {
		_, err := DecodeCursorHead(unhex(t, v.hex))
		wantViolation(t, err, v.want)
	}
}

// A reader's loop over a record stream: parse until ErrNeedMore, and at FIN
// judge what is left.
func parseRecords(b []byte) ([]CursorRecord, error) {
	var out []CursorRecord
	for {
		rec, n, err := ParseCursorRecord(b)
		if errors.Is(err, ErrNeedMore) {
			return out, CheckCursorRecordEnd(b)
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
		b = b[n:]
	}
}

func TestCursorRecordStream(t *testing.T) {
	want := []CursorRecord{
		{Level: LevelTransportReceipt, Offset: 0},
		{Level: LevelAccepted, Offset: 64},
		{Level: LevelProcessed, Offset: MaxVarint},
		{Level: ApplicationFloor, Offset: 1},
		{Level: MaxVarint, Offset: 1000000},
	}
	var stream []byte
	for _, r := range want {
		stream = AppendCursorRecord(stream, r)
	}
	got, err := parseRecords(stream)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("records = %+v, %v", got, err)
	}
	// Non-minimal varints decode too.
	if rec, n, err := ParseCursorRecord(unhex(t, "40 02 80 00 00 40")); err != nil || n != 6 || rec != (CursorRecord{2, 64}) {
		t.Fatalf("non-minimal record = %+v, %d, %v", rec, n, err)
	}
	_, err = parseRecords(append(stream, 0x02, 0x40))
	wantViolation(t, err, "CURSOR record cut off by FIN after 2 bytes")
}

func TestCursorRecordReservedLevels(t *testing.T) {
	for level := uint64(6); level < ApplicationFloor; level++ {
		// Rejected as soon as the level is known, offset or not.
		for _, b := range [][]byte{{byte(level)}, {byte(level), 0}, {0x40, byte(level), 0x80}} {
			_, _, err := ParseCursorRecord(b)
			wantViolation(t, err, "reserved")
		}
	}
}
