/*
 * bridge.h — the few things the Go exports need done in C: the per-thread
 * last-error text, the "inside a callback" flag, and calling a completion
 * callback. Hidden from the shared library's symbol table.
 */
#ifndef WEIDA_BRIDGE_H
#define WEIDA_BRIDGE_H

#define WEIDA_BUILDING_LIBRARY 1
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "weida.h"

#define WEIDA_HIDDEN __attribute__((visibility("hidden")))

/* Records text as the calling thread's last error. */
WEIDA_HIDDEN void weida_bridge_set_error(const char *text, size_t len);
/* Copies the calling thread's last error into buf (see weida_last_error). */
WEIDA_HIDDEN int weida_bridge_get_error(char *buf, size_t cap, size_t *needed);
/* Non-zero while the calling thread runs a completion or log callback. */
WEIDA_HIDDEN int weida_bridge_in_callback(void);
/* Copies text into static C storage kept for the life of the process and
 * returns it ("" once the 8 KiB store is full): the strings weida_version,
 * weida_alpn and weida_strerror return. */
WEIDA_HIDDEN const char *weida_bridge_intern(const char *text, size_t len);
/* What a text-returning export returns if it caught a fault. */
WEIDA_HIDDEN extern const char weida_bridge_fault_text[];
/* Runs cb(user, code, a, b) on this thread, with err as the thread's last
 * error when code is not WEIDA_OK and the callback flag raised. */
WEIDA_HIDDEN void weida_bridge_done(weida_done_fn cb, uintptr_t user, int code, uint64_t a,
                                    uint64_t b, const char *err, size_t errlen);

#endif
