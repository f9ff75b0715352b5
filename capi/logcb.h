/*
 * logcb.h — calling the log callback (log.go): the thread flag that says a
 * log callback is running on this thread, and the call itself. Hidden from
 * the shared library's symbol table.
 */
#ifndef WEIDA_LOGCB_H
#define WEIDA_LOGCB_H

#include "bridge.h"

/* Non-zero while the calling thread runs a log callback. */
WEIDA_HIDDEN int weida_bridge_in_log_callback(void);
/* Runs fn(user, level, message, attrs) on this thread with the flag raised. */
WEIDA_HIDDEN void weida_bridge_log(weida_log_fn fn, uintptr_t user, int level, const char *message,
                                   const char *attrs);

#endif
