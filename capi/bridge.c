/*
 * bridge.c — see bridge.h. The last error lives in a pthread key rather
 * than a bare _Thread_local pointer so that a C thread's text is freed when
 * the thread exits (memcheck stays clean for programs that start and join
 * threads).
 */
#include <pthread.h>
#include "bridge.h"
#include "logcb.h"

typedef struct {
    size_t len; /* bytes of text, without the NUL */
    size_t cap; /* bytes allocated for text */
    char *text;
} last_error;

const char weida_bridge_fault_text[] = "WEIDA_EINTERNAL: the library caught an internal fault";

static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;
static _Thread_local int in_callback;

static void error_free(void *p) {
    last_error *e = p;
    free(e->text);
    free(e);
}

static void error_init(void) { pthread_key_create(&error_key, error_free); }

static last_error *error_slot(int create) {
    pthread_once(&error_once, error_init);
    last_error *e = pthread_getspecific(error_key);
    if (e == NULL && create) {
        e = calloc(1, sizeof *e);
        if (e != NULL && pthread_setspecific(error_key, e) != 0) {
            free(e);
            e = NULL;
        }
    }
    return e;
}

void weida_bridge_set_error(const char *text, size_t len) {
    last_error *e = error_slot(1);
    if (e == NULL) {
        return; /* out of memory: the code alone still says what failed */
    }
    if (len + 1 > e->cap) {
        char *grown = realloc(e->text, len + 1);
        if (grown == NULL) {
            e->len = 0;
            return;
        }
        e->text = grown;
        e->cap = len + 1;
    }
    if (len > 0) {
        memcpy(e->text, text, len);
    }
    e->text[len] = '\0';
    e->len = len;
}

int weida_bridge_get_error(char *buf, size_t cap, size_t *needed) {
    last_error *e = error_slot(0);
    size_t len = e != NULL ? e->len : 0;
    if (needed != NULL) {
        *needed = len + 1;
    }
    if (cap == 0) {
        return WEIDA_ETRUNCATED; /* even "" needs its NUL */
    }
    if (buf == NULL) {
        return WEIDA_EINVAL;
    }
    size_t n = len < cap ? len : cap - 1;
    if (n > 0) {
        memcpy(buf, e->text, n);
    }
    buf[n] = '\0';
    return n == len ? WEIDA_OK : WEIDA_ETRUNCATED;
}

int weida_bridge_in_callback(void) { return in_callback || weida_bridge_in_log_callback(); }

/* The interned texts live in static storage, not the heap: a leak checker
 * has nothing to report, whether or not it scans this library's globals.
 * Interning happens once, from one Go initialiser, so no lock is needed;
 * the texts total about 2 KiB (a Go test checks they fit). */
static char interned[8192];
static size_t interned_used;

const char *weida_bridge_intern(const char *text, size_t len) {
    if (len + 1 > sizeof interned - interned_used) {
        return "";
    }
    char *copy = interned + interned_used;
    memcpy(copy, text, len);
    copy[len] = '\0';
    interned_used += len + 1;
    return copy;
}

void weida_bridge_done(weida_done_fn cb, uintptr_t user, int code, uint64_t a, uint64_t b,
                       const char *err, size_t errlen) {
    if (code != WEIDA_OK) {
        weida_bridge_set_error(err, errlen);
    }
    in_callback++;
    cb((void *)user, code, a, b);
    in_callback--;
}
