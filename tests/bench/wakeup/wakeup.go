// Package wakeup measures what waking a sleeping thread costs on the machine
// the benchmarks run on. Every binding operation that waits crosses threads
// twice (the caller's thread hands the operation to the library's, whose
// thread hands the outcome back), so this one figure of the machine sets a
// floor under the bindings' round trips that no code in weida can lower;
// the report prints it beside the machine's description.
//
// Two threads take turns over a pair of eventfds: each write wakes the other
// thread blocked in read. The caller pauses between rounds, as a client
// between requests does, so an idle CPU has time to halt (a virtual CPU
// that halts may cost the hypervisor an exit and an interrupt to wake).
// The one-way figure is half the median round trip.
package wakeup

/*
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

typedef struct { int ping, pong, cpu; } wakeup_peer;

static int wakeup_pin(int cpu) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *wakeup_answer(void *arg) {
	wakeup_peer *p = arg;
	uint64_t v;
	if (wakeup_pin(p->cpu) != 0) return NULL;
	for (;;) {
		if (read(p->ping, &v, sizeof v) != sizeof v) return NULL;
		if (v == UINT64_MAX - 1) return NULL; // the stop word
		v = 1;
		if (write(p->pong, &v, sizeof v) != sizeof v) return NULL;
	}
}

// wakeup_cpus puts the first two CPUs this thread may run on in cpus and
// returns how many it found (0, 1 or 2).
static int wakeup_cpus(int *cpus) {
	cpu_set_t set;
	int found = 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return 0;
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &set)) cpus[found++] = c;
	return found;
}

static int64_t wakeup_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

// wakeup_rounds fills rtt[0..n) with round trips in ns between a thread on
// cpu a (this one, pinned for the call) and a thread on cpu b, pausing
// gap_us between rounds. It returns 0, or an errno.
static int wakeup_rounds(int a, int b, int n, int gap_us, int64_t *rtt) {
	cpu_set_t saved;
	if (pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) != 0) return EINVAL;
	wakeup_peer p = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC), b };
	int err = 0;
	pthread_t t;
	if (p.ping < 0 || p.pong < 0) { err = errno; goto out; }
	if ((err = wakeup_pin(a)) != 0) goto out;
	if ((err = pthread_create(&t, NULL, wakeup_answer, &p)) != 0) goto out;
	for (int i = 0; i < n && err == 0; i++) {
		uint64_t v = 1;
		int64_t start = wakeup_now();
		if (write(p.ping, &v, sizeof v) != sizeof v || read(p.pong, &v, sizeof v) != sizeof v) err = errno ? errno : EIO;
		rtt[i] = wakeup_now() - start;
		if (gap_us > 0) usleep(gap_us);
	}
	uint64_t stop = UINT64_MAX - 1;
	if (write(p.ping, &stop, sizeof stop) == sizeof stop) pthread_join(t, NULL);
out:
	if (p.ping >= 0) close(p.ping);
	if (p.pong >= 0) close(p.pong);
	pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
	return err;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// Figures is one measurement: the median one-way wake-up of a thread on
// another CPU and on the same CPU as its waker.
type Figures struct {
	AcrossCPUs time.Duration `json:"across_cpus_ns"` // 0 where the process may use one CPU only
	SameCPU    time.Duration `json:"same_cpu_ns"`
}

// Rounds and Gap are Measure's defaults: enough round trips for a stable
// median in well under a second.
const (
	Rounds = 1000
	Gap    = 50 * time.Microsecond
)

// Measure times rounds round trips between the first two CPUs the process
// may use and as many within the first, pausing gap between rounds, and
// halves the medians. The calling goroutine's thread is pinned for the
// duration and restored.
func Measure(rounds int, gap time.Duration) (Figures, error) {
	if rounds < 1 {
		return Figures{}, fmt.Errorf("wakeup: rounds must be at least 1, got %d", rounds)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpus [2]C.int
	n := C.wakeup_cpus(&cpus[0])
	if n == 0 {
		return Figures{}, fmt.Errorf("wakeup: cannot read this thread's CPU affinity")
	}
	var f Figures
	var err error
	if f.SameCPU, err = oneWay(cpus[0], cpus[0], rounds, gap); err != nil {
		return Figures{}, err
	}
	if n == 2 {
		if f.AcrossCPUs, err = oneWay(cpus[0], cpus[1], rounds, gap); err != nil {
			return Figures{}, err
		}
	}
	return f, nil
}

// oneWay is half the median round trip between threads on cpus a and b.
func oneWay(a, b C.int, rounds int, gap time.Duration) (time.Duration, error) {
	rtt := make([]int64, rounds)
	if rc := C.wakeup_rounds(a, b, C.int(rounds), C.int(gap.Microseconds()),
		(*C.int64_t)(unsafe.Pointer(&rtt[0]))); rc != 0 {
		return 0, fmt.Errorf("wakeup: threads on CPUs %d and %d: %w", a, b, syscall.Errno(rc))
	}
	slices.Sort(rtt)
	return time.Duration(rtt[len(rtt)/2] / 2), nil
}
