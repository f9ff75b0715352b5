/* logcb.c — see logcb.h. */
#include "logcb.h"

static _Thread_local int in_log_callback;

int weida_bridge_in_log_callback(void) { return in_log_callback; }

void weida_bridge_log(weida_log_fn fn, uintptr_t user, int level, const char *message,
                      const char *attrs) {
    in_log_callback++;
    fn((void *)user, level, message, attrs);
    in_log_callback--;
}
