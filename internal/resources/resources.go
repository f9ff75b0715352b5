// Package resources measures what a test run costs the process — live
// goroutines, live heap, resident memory — so end-to-end tests can assert
// that a victim's resources stay bounded under attack and return to their
// baseline afterwards.
package resources

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// Snapshot is the process's live goroutines and memory at one moment.
type Snapshot struct {
	Goroutines int
	// HeapBytes is the live heap after a full collection (HeapAlloc).
	HeapBytes uint64
	// StackBytes is the memory of goroutine stacks (StackInuse). It does
	// not fall back when goroutines end: the runtime keeps an ended
	// goroutine's stack on its free list for the next one.
	StackBytes uint64
}

// Take collects garbage and returns the live goroutines and memory. It
// collects twice: the first collection moves sync.Pool contents to the
// pools' victim caches, the second frees them, so pooled buffers (quic-go
// keeps packet buffers in pools) are not mistaken for retained state.
func Take() Snapshot {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Snapshot{Goroutines: runtime.NumGoroutine(), HeapBytes: m.HeapAlloc, StackBytes: m.StackInuse}
}

// LiveGrowth is how far the live heap and the stacks together grew since
// s: what a load in progress costs (negative when it shrank).
func (s Snapshot) LiveGrowth() int64 {
	now := Take()
	return int64(now.HeapBytes+now.StackBytes) - int64(s.HeapBytes+s.StackBytes)
}

// HeapGrowth is how far the live heap alone grew since s: what is left
// once a load ended (stacks are kept for reuse, see StackBytes).
func (s Snapshot) HeapGrowth() int64 { return int64(Take().HeapBytes) - int64(s.HeapBytes) }

// GoroutineGrowth is how many goroutines more than s are alive now.
func (s Snapshot) GoroutineGrowth() int { return runtime.NumGoroutine() - s.Goroutines }

// AwaitGoroutines waits, up to within, until at most slack goroutines more
// than s are alive, and otherwise returns an error carrying every stack.
// Goroutines end asynchronously after a connection closes, so the count is
// polled; nothing is synchronised on the wait itself.
func (s Snapshot) AwaitGoroutines(slack int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		n := runtime.NumGoroutine()
		if n <= s.Goroutines+slack {
			return nil
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 4<<20)
			buf = buf[:runtime.Stack(buf, true)]
			return fmt.Errorf("%d goroutines alive, baseline %d + slack %d:\n%s", n, s.Goroutines, slack, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// AwaitHeap waits, up to within, until the live heap is at most bound
// above s, and otherwise returns an error naming the growth. quic-go keeps
// a closed connection's identifiers (and its CONNECTION_CLOSE packet) for
// three probe timeouts to answer late packets, so a heap falls back to its
// baseline over a few seconds after a load ends, not at once.
func (s Snapshot) AwaitHeap(bound int64, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		g := s.HeapGrowth()
		if g <= bound {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the live heap stayed %s above its baseline of %s, bound %s",
				MiB(g), MiB(s.HeapBytes), MiB(bound))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// GoroutineDescriptor is what each goroutine that ever ran costs the heap
// for good: the runtime keeps every goroutine descriptor it made (its allgs
// list never shrinks) to reuse it, so a load that peaked at n goroutines
// leaves about n descriptors behind. Measured near 750 bytes; rounded up.
const GoroutineDescriptor = 1 << 10

// RSS is the process's resident set size in bytes (Linux /proc; 0 and an
// error elsewhere). FreeOSMemory first returns freed heap to the kernel, so
// the figure is what the process still holds, not what it once touched.
func RSS() (uint64, error) {
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if len(line) > 6 && line[:6] == "VmRSS:" {
			var kb uint64
			fields := bytes.Fields([]byte(line[6:]))
			if len(fields) == 0 {
				break
			}
			kb, err = strconv.ParseUint(string(fields[0]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS line in /proc/self/status")
}

// MiB formats a byte count as mebibytes with one decimal.
func MiB[T int64 | uint64 | int](n T) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
