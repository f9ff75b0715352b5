/*
 * timerslack.c — see timerslack.go.
 */
#include "timerslack.h"

#ifdef __linux__
#include <sys/prctl.h>

static _Thread_local int tightened;

int weida_bridge_tighten_timer_slack(void) {
    if (!tightened) {
        tightened = prctl(PR_SET_TIMERSLACK, WEIDA_SCHEDULER_TIMER_SLACK_NS, 0, 0, 0) == 0 ? 1 : -1;
    }
    return tightened > 0;
}
#else
int weida_bridge_tighten_timer_slack(void) { return 0; }
#endif
