package store_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// fsyncCallers records, for every fsync of a file or directory, whether
// Settle or Attempt was on the stack of the goroutine making it, or the
// writer's housekeeping.
type fsyncCallers struct {
	mu             sync.Mutex
	inline, writer int
}

func (c *fsyncCallers) check(string) error {
	buf := make([]byte, 64<<10)
	stack := string(buf[:runtime.Stack(buf, false)])
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case strings.Contains(stack, "(*Queue).Settle") || strings.Contains(stack, "(*Queue).Attempt"):
		c.inline++
	case strings.Contains(stack, "(*Queue).housekeep"):
		c.writer++
	}
	return nil
}

// TestSettleAndAttemptNeverWaitForTheDisk is issue 18 item 7: the broker
// calls Settle and Attempt from its queue loop, so neither may wait for an
// fsync. Settling 300 payload-file messages on 2 KiB segments makes the
// store purge segments (a cell write: two fsyncs) and remove freed payloads
// (a journal fsync first) many times over; every one of those fsyncs must
// come from the queue's writer goroutine, none from inside Settle or
// Attempt. Before the writer, Settle made them itself.
func TestSettleAndAttemptNeverWaitForTheDisk(t *testing.T) {
	for _, d := range []store.Durability{store.Written, store.Flushed} {
		t.Run(d.String(), func(t *testing.T) {
			disk := faultfs.New(1)
			var callers fsyncCallers
			disk.Inject(faultfs.Fault{Op: faultfs.OpSync, Check: callers.check})
			disk.Inject(faultfs.Fault{Op: faultfs.OpSyncDir, Check: callers.check})
			s, err := store.Open("/data", store.Options{FS: disk.FS(), SegmentBytes: 2 << 10})
			if err != nil {
				t.Fatal(err)
			}
			q, _ := openQueue(t, s, d)
			var msgs []store.Message
			for i := 0; i < 300; i++ {
				msgs = append(msgs, admit(t, q, bodyOf(i, fileSized), store.Meta{}))
			}
			for _, m := range msgs {
				if err := q.Attempt(m.Seq, 1); err != nil {
					t.Fatal(err)
				}
				if err := q.Settle(m.Seq); err != nil {
					t.Fatal(err)
				}
			}
			// One more round, as the writer would run it, so the count
			// below does not depend on how the writer was scheduled.
			if err := store.Housekeep(q); err != nil {
				t.Fatal(err)
			}
			mustClose(t, s)
			if callers.inline != 0 || callers.writer == 0 {
				t.Fatalf("%d fsyncs made inside Settle or Attempt, %d by housekeeping; want none and some",
					callers.inline, callers.writer)
			}
			if got := q.Stats(); got.Live != 0 {
				t.Fatalf("stats after settling everything: %+v", got)
			}
		})
	}
}
