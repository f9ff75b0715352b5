/*
 * bridge.c — the completion bridge: a library _async call as a Promise.
 *
 * Each env owns one napi_threadsafe_function. A call creates an op_t (the
 * Promise's deferred, the parent object, how to shape the result) and hands
 * it to the library as the callback's `user`. The callback runs on a library
 * thread: it records the outcome (and the failure's sentence, which
 * weida_last_error keeps per thread) and queues the op on the threadsafe
 * function; it never runs JavaScript. settle() then runs on the JS thread and
 * resolves or rejects the Promise. Nothing blocks the JS thread.
 *
 * Keeping the process alive: the threadsafe function is referenced only
 * while at least one op is pending, so idle handles (an open runtime, a
 * bound endpoint nobody waits on) never keep Node from exiting, while a
 * pending call does, as a pending socket read would.
 *
 * Results that arrive after the env began tearing down (a worker
 * terminated with calls pending, a process exiting) are closed, never
 * delivered into a dead env. The state they point to is never freed.
 */
#include "addon.h"

#include <stdlib.h>

/* Closes the result handles of an outcome nobody will receive. */
static void discard(op_t *p) {
    if (p->code == WEIDA_OK) {
        int owned = shape_owned(p->shape);
        if (owned >= 1 && p->a) weida_close(p->a);
        if (owned >= 2 && p->b) weida_close(p->b);
    }
}

static void op_free(op_t *p) {
    free(p->cause);
    free(p->buf);
    free(p);
}

/* One op fewer in flight: the last one lets the process exit again. */
static void op_done(napi_env env, addon_t *addon) {
    if (--addon->pending == 0) napi_unref_threadsafe_function(env, addon->tsfn);
}

/* The JS thread: settles one op's Promise. env is NULL when the threadsafe
 * function is being finalized (the env is going away). */
static void settle(napi_env env, napi_value js_cb, void *context, void *data) {
    (void)js_cb;
    (void)context;
    op_t *p = data;
    if (env == NULL) {
        discard(p);
        op_free(p);
        return;
    }
    op_done(env, p->addon);
    napi_value value = NULL;
    bool ok = false;
    if (p->code == WEIDA_OK || (p->code == WEIDA_END && shape_ends(p->shape))) {
        value = shape_value(env, p);
        ok = value != NULL;
        if (!ok) { /* a conversion threw: reject with that, close what is unowned */
            bool pending = false;
            napi_is_exception_pending(env, &pending);
            if (pending) napi_get_and_clear_last_exception(env, &value);
            if (value == NULL) value = make_error(env, WEIDA_EINTERNAL, "weida: a result could not be converted");
            discard(p);
        }
    } else {
        value = make_error(env, p->code, p->cause);
    }
    if (ok) {
        napi_resolve_deferred(env, p->deferred, value);
    } else {
        napi_reject_deferred(env, p->deferred, value);
    }
    if (p->parent) napi_delete_reference(env, p->parent);
    op_free(p);
}

void on_done(void *user, int code, uint64_t a, uint64_t b) {
    op_t *p = user;
    p->code = code;
    p->a = a;
    p->b = b;
    if (code != WEIDA_OK && code != WEIDA_END) p->cause = last_error_text();
    addon_t *addon = p->addon;
    pthread_rwlock_rdlock(&addon->gate);
    bool queued = !addon->closing &&
                  napi_call_threadsafe_function(addon->tsfn, p, napi_tsfn_nonblocking) == napi_ok;
    pthread_rwlock_unlock(&addon->gate);
    if (!queued) {
        /* The env is gone or going: nobody will receive this. Its deferred
         * and reference die with the env. */
        discard(p);
        op_free(p);
    }
}

/* Runs before Node finalizes the threadsafe function (see bridge_init). */
static void on_env_cleanup(void *arg) {
    addon_t *addon = arg;
    pthread_rwlock_wrlock(&addon->gate);
    addon->closing = true;
    pthread_rwlock_unlock(&addon->gate);
}

bool bridge_init(napi_env env, addon_t *addon) {
    if (pthread_rwlock_init(&addon->gate, NULL) != 0) return false;
    napi_value name;
    napi_create_string_utf8(env, "weida.completions", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, settle,
                                        &addon->tsfn) != napi_ok) {
        return false;
    }
    /* Idle until an op is pending. */
    napi_unref_threadsafe_function(env, addon->tsfn);
    /* Registered after the threadsafe function, so it runs before Node
     * finalizes it (cleanup hooks run in reverse order). */
    napi_add_env_cleanup_hook(env, on_env_cleanup, addon);
    return true;
}

op_t *op_new(napi_env env, int shape, napi_value parent, napi_value *promise) {
    addon_t *addon = addon_of(env);
    op_t *p = calloc(1, sizeof *p);
    if (p == NULL) {
        napi_throw_error(env, NULL, "out of memory");
        return NULL;
    }
    p->addon = addon;
    p->shape = shape;
    addon->last_op = 0; /* until this op has started: lastOp() never names an older one */
    if (napi_create_promise(env, &p->deferred, promise) != napi_ok) {
        free(p);
        return NULL;
    }
    napi_valuetype type = napi_undefined;
    if (parent != NULL) napi_typeof(env, parent, &type);
    if (type == napi_object) napi_create_reference(env, parent, 1, &p->parent);
    if (addon->pending++ == 0) napi_ref_threadsafe_function(env, addon->tsfn);
    return p;
}

napi_value op_begin(napi_env env, op_t *p, napi_value promise, int rc, weida_op_t op) {
    if (rc == WEIDA_OK) {
        p->addon->last_op = op;
        return promise;
    }
    /* Nothing started: the callback will never run. */
    char *cause = last_error_text();
    napi_reject_deferred(env, p->deferred, make_error(env, rc, cause));
    free(cause);
    op_done(env, p->addon);
    if (p->parent) napi_delete_reference(env, p->parent);
    op_free(p);
    return promise;
}

napi_value settled_now(napi_env env, int rc) {
    napi_value promise;
    napi_deferred deferred;
    addon_of(env)->last_op = 0; /* nothing left running to cancel */
    napi_create_promise(env, &deferred, &promise);
    if (rc == WEIDA_OK) {
        napi_resolve_deferred(env, deferred, js_undefined(env));
    } else {
        char *cause = last_error_text();
        napi_reject_deferred(env, deferred, make_error(env, rc, cause));
        free(cause);
    }
    return promise;
}

napi_value rejected_by_exception(napi_env env) {
    napi_value error, promise;
    napi_deferred deferred;
    addon_of(env)->last_op = 0; /* nothing started */
    napi_get_and_clear_last_exception(env, &error);
    napi_create_promise(env, &deferred, &promise);
    napi_reject_deferred(env, deferred, error);
    return promise;
}
