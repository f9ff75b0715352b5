/*
 * timerslack.h — the timer slack of the library's own scheduler threads
 * (Linux; elsewhere a no-op).
 */
#ifndef WEIDA_TIMERSLACK_H
#define WEIDA_TIMERSLACK_H

#include "bridge.h"

#define WEIDA_SCHEDULER_TIMER_SLACK_NS 1000UL

/* Sets the calling thread's timer slack, trying once per thread; returns
 * whether the thread has it. */
WEIDA_HIDDEN int weida_bridge_tighten_timer_slack(void);

#endif
