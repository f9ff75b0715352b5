package main

/*
#include "timerslack.h"
*/
import "C"

// tightenTimerSlack gives the scheduler thread it runs on a 1 µs timer
// slack, once per thread (a thread-local flag makes later calls ~free).
//
// A goroutine that an _async call starts from a C thread (an event loop)
// lands in the run queue of the processor that C thread holds; an idle
// scheduler thread that comes to take it while the C thread is still in
// Go backs off with a 3 µs sleep, and Linux stretches every such sleep by
// the thread's timer slack, 50 µs unless set. Measured from Python, that
// made a no-op _async call take ~100 µs instead of ~20 µs. The slack is
// per thread and only the library's own threads get it: they are the ones
// running its goroutines, so each is tightened the first time it runs one.
// The caller's threads are left alone.
func tightenTimerSlack() bool { return C.weida_bridge_tighten_timer_slack() != 0 }

// init tightens the thread running the library's initialisation, from
// which the runtime creates most of its later threads (they inherit it).
func init() { _ = tightenTimerSlack() }
