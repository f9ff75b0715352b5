/*
 * fn_log.c — the library's log lines, delivered to JavaScript.
 *
 * weida_set_log_callback is one per process; the env that called
 * setLogCallback last owns it. The library calls on_line on its own
 * threads: it copies the line and queues it on a threadsafe function
 * (nonblocking, at most LOG_QUEUE lines waiting; past that a line is
 * dropped and counted), whose JavaScript side (lib/logging.js) calls the
 * user's callback on the JS thread. Removing it waits out lines in flight
 * in the library (weida_set_log_callback's promise), then releases the
 * threadsafe function; an env torn down removes it first. The threadsafe
 * function is unreferenced: logging never keeps the process alive.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

#define LOG_QUEUE 1024

typedef struct line {
    int level;
    char *message;
    char *attrs;
} line_t;

/* The owning env's state; guarded by the JS thread that owns it (only it
 * installs and removes). dropped is written from library threads. */
static struct {
    napi_env env;
    napi_threadsafe_function tsfn;
} owner;
static uint64_t dropped; /* lines the full queue refused (atomically updated) */

static void line_free(line_t *l) {
    if (l == NULL) return;
    free(l->message);
    free(l->attrs);
    free(l);
}

/* weida_log_fn: a library thread. Never blocks and never calls into JS. */
static void on_line(void *user, int level, const char *message, const char *attrs) {
    napi_threadsafe_function tsfn = user;
    line_t *l = calloc(1, sizeof *l);
    if (l == NULL) return;
    l->level = level;
    l->message = strdup(message);
    l->attrs = strdup(attrs);
    if (l->message == NULL || l->attrs == NULL ||
        napi_call_threadsafe_function(tsfn, l, napi_tsfn_nonblocking) != napi_ok) {
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
        line_free(l);
    }
}

/* The JS thread: hands one line to the dispatcher (lib/logging.js), which
 * catches what the user's callback throws. env is NULL when the queue is
 * discarded at teardown. */
static void deliver(napi_env env, napi_value dispatch, void *context, void *data) {
    (void)context;
    line_t *l = data;
    if (env != NULL && dispatch != NULL) {
        napi_value argv[3], global, result;
        napi_create_int32(env, l->level, &argv[0]);
        napi_create_string_utf8(env, l->message, NAPI_AUTO_LENGTH, &argv[1]);
        napi_create_string_utf8(env, l->attrs, NAPI_AUTO_LENGTH, &argv[2]);
        napi_get_global(env, &global);
        if (napi_call_function(env, global, dispatch, 3, argv, &result) == napi_pending_exception) {
            napi_value ignored;
            napi_get_and_clear_last_exception(env, &ignored); /* the dispatcher reports; never rethrown */
        }
    }
    line_free(l);
}

/* Removes the library's callback (waiting out lines in flight) and
 * releases the threadsafe function. */
static void uninstall(void) {
    if (owner.tsfn == NULL) return;
    weida_set_log_callback(WEIDA_LOG_INFO, NULL, NULL);
    napi_release_threadsafe_function(owner.tsfn, napi_tsfn_abort);
    owner.tsfn = NULL;
    owner.env = NULL;
}

static void on_env_cleanup(void *arg) {
    if (owner.env == arg) uninstall();
}

/* (minLevel, dispatch | null) -> undefined */
NAPI_FN(SetLogCallback) {
    napi_value argv[2];
    if (!get_args(env, info, 2, argv)) return NULL;
    int32_t level = 0;
    if (napi_get_value_int32(env, argv[0], &level) != napi_ok) {
        napi_throw_type_error(env, NULL, "minLevel must be a number");
        return NULL;
    }
    napi_valuetype type;
    napi_typeof(env, argv[1], &type);
    if (type != napi_function && type != napi_null && type != napi_undefined) {
        napi_throw_type_error(env, NULL, "the log dispatcher must be a function or null");
        return NULL;
    }
    if (owner.env != NULL && owner.env != env) {
        /* Another env (a worker) owned it: that env's tsfn is not ours to release. */
        napi_throw_error(env, NULL, "weida: another thread's environment holds the log callback");
        return NULL;
    }
    if (owner.env == env) {
        napi_remove_env_cleanup_hook(env, on_env_cleanup, env);
        uninstall();
    }
    if (type != napi_function) return js_undefined(env);
    napi_value name;
    napi_create_string_utf8(env, "weida.log", NAPI_AUTO_LENGTH, &name);
    napi_threadsafe_function tsfn;
    if (napi_create_threadsafe_function(env, argv[1], NULL, name, LOG_QUEUE, 1, NULL, NULL, NULL, deliver,
                                        &tsfn) != napi_ok) {
        napi_throw_error(env, NULL, "weida: could not create the log channel");
        return NULL;
    }
    napi_unref_threadsafe_function(env, tsfn);
    owner.env = env;
    owner.tsfn = tsfn;
    /* Registered after the threadsafe function: it runs before Node
     * finalizes it (cleanup hooks run in reverse order). */
    napi_add_env_cleanup_hook(env, on_env_cleanup, env);
    int rc = weida_set_log_callback(level, on_line, tsfn);
    if (rc != WEIDA_OK) {
        napi_remove_env_cleanup_hook(env, on_env_cleanup, env);
        uninstall();
        return throw_code(env, rc);
    }
    return js_undefined(env);
}

/* () -> Number: lines dropped because the queue was full. */
NAPI_FN(LogLinesDropped) {
    (void)info;
    return js_number(env, (double)__atomic_load_n(&dropped, __ATOMIC_RELAXED));
}

const export_fn_t fn_log[] = {
    {"setLogCallback", SetLogCallback},
    {"logLinesDropped", LogLinesDropped},
    {NULL, NULL},
};
