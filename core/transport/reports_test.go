package transport

import (
	"sync/atomic"
	"testing"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// countingSink is a ReportSink that counts how often it was told its
// report ended.
type countingSink struct{ ended atomic.Int32 }

func (s *countingSink) ReportEnded()              { s.ended.Add(1) }
func (s *countingSink) ServeReport(*CursorStream) {}

func TestReportIDsLiveAndEndWithTheConnection(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	awaited, taken := &countingSink{}, &countingSink{}
	for want, sink := range []*countingSink{awaited, taken} {
		if id, err := c.OrderReport(sink); err != nil || id != uint64(want+1) {
			t.Fatalf("OrderReport = %d, %v; want id %d", id, err, want+1)
		}
	}
	if got, ok := c.TakeReport(2); !ok || got != taken {
		t.Fatalf("TakeReport(2) = %v, %v", got, ok)
	}
	if _, ok := c.TakeReport(2); ok {
		t.Fatal("a report was taken twice")
	}
	c.Close(wire.CodeNoError, "")
	if awaited.ended.Load() != 1 || taken.ended.Load() != 0 {
		t.Fatalf("ended: awaited %d, taken %d; want 1 and 0", awaited.ended.Load(), taken.ended.Load())
	}
	if _, err := c.OrderReport(&countingSink{}); errs.KindOf(err) == 0 {
		t.Fatalf("OrderReport on an ended connection: %v, want the connection's error", err)
	}
	if _, err := c.OpenCursor(testContext(t), 1); errs.KindOf(err) == 0 {
		t.Fatalf("OpenCursor on an ended connection: %v, want the connection's error", err)
	}
}
