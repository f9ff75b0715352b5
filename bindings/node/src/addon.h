/*
 * addon.h — what the addon's files share.
 *
 * The addon is a thin boundary over weida.h: it converts arguments, holds
 * nothing but 64-bit handles (passed to JavaScript as BigInt), and shapes
 * the completions of the library's _async calls into Promises. Protocol
 * behaviour (limits, negotiation, drain, refusals) lives in the library.
 *
 *   args.c     JavaScript values in: handles, bytes, text, ceilings; errors out
 *   bridge.c   the completion bridge: one threadsafe function per env, one
 *              op_t per pending call, Promise settlement on the JS thread
 *   values.c   library results out: payloads, meta, surveys, instances
 *   fn_*.c     the exported functions, one file per area of weida.h
 *              (fn_log.c: the log callback, through its own threadsafe function)
 *              (fn_common.c: the argument shapes most of them share)
 *   addon.c    module init: instance state and the export table
 *
 * Calls between them run one way: fn_*.c -> fn_common.c -> bridge.c ->
 * values.c -> args.c, and each reads the env's state through addon_of here.
 */
#ifndef WEIDA_NODE_ADDON_H
#define WEIDA_NODE_ADDON_H

/* POSIX: pthread_rwlock_t and strdup under -std=c11. Every file includes
 * this header before any system header. */
#define _POSIX_C_SOURCE 200809L
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "weida.h"

/* The JavaScript constructors the addon instantiates for results, registered
 * once by the JavaScript layer through setup(). */
enum ctor_id {
    CTOR_INCOMING_META,
    CTOR_REQUEST,
    CTOR_OUTGOING_STREAM,
    CTOR_INCOMING_STREAM,
    CTOR_REPLY,
    CTOR_SURVEY,
    CTOR_CURSORS,
    CTOR_REPORTER,
    CTOR_COUNT
};

/* Per-env state (instance data): one per main thread or worker. */
typedef struct addon {
    napi_threadsafe_function tsfn; /* carries completions to the JS thread */
    size_t pending;                /* started and not settled (JS thread only) */
    weida_op_t last_op;            /* the op of the newest started call */
    napi_ref make_error;           /* JS (code, sentence) -> Error */
    napi_ref ctor[CTOR_COUNT];
    /* Library threads hold it (read) while handing a completion to tsfn;
     * the env's teardown takes it (write) to set closing, so no completion
     * can reach tsfn once Node starts finalizing it. */
    pthread_rwlock_t gate;
    bool closing;                  /* the env is being torn down */
} addon_t;

/* This env's state. Here rather than in a .c file so that args.c, values.c
 * and bridge.c each depend on the addon's state alone, not on one another
 * in a circle. */
static inline addon_t *addon_of(napi_env env) {
    addon_t *addon = NULL;
    napi_get_instance_data(env, (void **)&addon);
    return addon;
}

/* How a completion's (code, a, b) becomes the Promise's value. */
enum shape {
    SHAPE_UNIT,     /* undefined */
    SHAPE_COUNT,    /* Number(a) */
    SHAPE_DRAIN,    /* {delivered: a, outstanding: b} */
    SHAPE_PAYLOAD,  /* msg a -> Buffer (msg closed) */
    SHAPE_MSG,      /* msg a -> {payload, meta} (msg closed) */
    SHAPE_REQUEST,  /* request a -> new Request(a, parent, payload, meta) */
    SHAPE_OSTREAM,  /* ostream a -> new OutgoingStream(a, parent) */
    SHAPE_EXCHANGE, /* {stream: OutgoingStream(a), reply: Reply(b)} */
    SHAPE_ISTREAM,  /* istream a -> {stream: new IncomingStream(a, parent), meta} */
    SHAPE_SURVEY,   /* survey a -> new Survey(...) (survey closed) */
    SHAPE_READ,     /* n = a bytes of the op's buffer; WEIDA_END -> empty Buffer */
    SHAPE_CURSORS,  /* cursors a -> new Cursors(a), or null when a = 0 */
    SHAPE_REPORTING, /* {payload, meta, reporter: new Reporter(b, parent) or null} */
    SHAPE_CHANGED,  /* true; WEIDA_END -> false (the report ended) */
    SHAPE_DISH      /* msg a of enum weida_dish_kind b -> {kind, payload, meta} (msg closed) */
};

/* One pending _async call. Owned by the bridge from op_new to settlement. */
typedef struct op {
    addon_t *addon;
    napi_deferred deferred;
    napi_ref parent; /* the object results are kept with, or NULL */
    int shape;
    int code;
    uint64_t a, b;
    char *cause;     /* the failure's sentence (malloc), read on the library thread */
    void *buf;       /* SHAPE_READ: the piece buffer the library writes into */
} op_t;

/* ---- args.c --------------------------------------------------------- */

/* Fetches up to n arguments (missing ones are undefined) into argv. */
bool get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv);
bool arg_handle(napi_env env, napi_value v, uint64_t *out);
/* A Buffer, Uint8Array (any ArrayBufferView) or ArrayBuffer, borrowed. */
bool arg_bytes(napi_env env, napi_value v, const char *what, const void **data, size_t *len);
/* A string without NUL, as malloc'd UTF-8 the caller frees. */
bool arg_text(napi_env env, napi_value v, const char *what, char **out);
/* A byte ceiling: a non-negative integer Number or BigInt. */
bool arg_ceiling(napi_env env, napi_value v, const char *what, size_t *out);
/* A queue credit (a message count), read as a ceiling is, in a uint64_t. */
bool arg_credit(napi_env env, napi_value v, const char *what, uint64_t *out);
/* Seconds: any Number; the library judges finite and not negative. */
bool arg_seconds(napi_env env, napi_value v, const char *what, double *out);
/* An unsigned 64-bit level or offset: a Number (non-negative integer) or a
 * BigInt. Out of range is Protocol (the wire has no encoding for it). */
bool arg_word(napi_env env, napi_value v, const char *what, uint64_t *out);
/* A report order: an array of levels as malloc'd words (free *out) and a
 * mode (an integer; the library judges which). */
bool arg_order(napi_env env, napi_value levels, napi_value mode, uint64_t **out, size_t *n, int *mode_out);

/* The JavaScript Error for a code and sentence ("" -> weida_strerror). */
napi_value make_error(napi_env env, int code, const char *cause);
/* The calling thread's weida_last_error(), malloc'd. */
char *last_error_text(void);
/* Throws the error of a failed call made on this thread; returns NULL. */
napi_value throw_code(napi_env env, int code);
/* Result helpers for synchronous calls. */
napi_value js_undefined(napi_env env);
napi_value js_handle(napi_env env, uint64_t h);
napi_value js_number(napi_env env, double n);
napi_value js_string(napi_env env, const char *s);

/* ---- bridge.c ------------------------------------------------------- */

bool bridge_init(napi_env env, addon_t *addon);
/* A new pending op; *promise is what the call returns. parent may be NULL. */
op_t *op_new(napi_env env, int shape, napi_value parent, napi_value *promise);
/* Finishes starting an op: rc is the _async function's return code. */
napi_value op_begin(napi_env env, op_t *p, napi_value promise, int rc, weida_op_t op);
/* The library's completion callback (weida_done_fn). */
void on_done(void *user, int code, uint64_t a, uint64_t b);
/* A Promise rejected with the pending exception (bad arguments). */
napi_value rejected_by_exception(napi_env env);
/* A Promise already settled by rc: resolved (undefined) when WEIDA_OK,
 * else rejected with rc's error and this thread's last error sentence.
 * For a call that finished without starting an operation. */
napi_value settled_now(napi_env env, int rc);

/* ---- values.c ------------------------------------------------------- */

napi_value new_instance(napi_env env, int ctor, size_t argc, const napi_value *argv);
/* The payload of a msg (or request, survey reply) copied into a Buffer. */
napi_value buffer_copy(napi_env env, const void *data, size_t len);
/* Every meta field of a msg, request or istream handle as an IncomingMeta. */
napi_value read_meta(napi_env env, uint64_t h);
/* The Promise value of a successful op (may throw; handles are then closed by the caller). */
napi_value shape_value(napi_env env, op_t *p);
/* How many of (a, b) are result handles this side must close if unused. */
int shape_owned(int shape);
/* Whether WEIDA_END is a value of this shape rather than a failure. */
bool shape_ends(int shape);
/* An array of Numbers from words. */
napi_value number_array(napi_env env, const uint64_t *words, size_t n);
/* Text from a getter fn(h, buf, cap, needed); NULL with an exception on failure. */
napi_value read_text(napi_env env, int (*fn)(uint64_t, char *, size_t, size_t *), uint64_t h);

/* ---- fn_common.c: the shapes most exported functions share ------------ */

typedef int (*async_url_fn)(uint64_t, const char *, weida_done_fn, void *, weida_op_t *);
typedef int (*async_bytes_fn)(uint64_t, const void *, size_t, weida_done_fn, void *, weida_op_t *);
typedef int (*async_ceiling_fn)(uint64_t, size_t, weida_done_fn, void *, weida_op_t *);
typedef int (*async_plain_fn)(uint64_t, weida_done_fn, void *, weida_op_t *);
typedef int (*size_fn)(uint64_t, size_t *);
typedef int (*u64_fn)(uint64_t, uint64_t *);
typedef int (*text_fn)(uint64_t, char *, size_t, size_t *);

/* Every function returning a Promise takes the JavaScript object it was
 * called on as its last argument: the op holds it until settled, so an
 * endpoint nobody else references is not collected (and closed) under its
 * own pending call, and results are kept with it. */

/* (h, text, self) -> Promise<undefined>; what names the text (e.g. "url"). */
napi_value call_with_text(napi_env env, napi_callback_info info, const char *what, async_url_fn fn);
/* (h, bytes, self) -> Promise<shape> */
napi_value call_with_bytes(napi_env env, napi_callback_info info, const char *what, int shape,
                           async_bytes_fn fn);
/* (h, maxBytes, self) -> Promise<shape> */
napi_value call_with_ceiling(napi_env env, napi_callback_info info, const char *what, int shape,
                             async_ceiling_fn fn);
/* (h, self) -> Promise<shape> */
napi_value call_plain(napi_env env, napi_callback_info info, int shape, async_plain_fn fn);
/* (h) -> Number */
napi_value count_size(napi_env env, napi_callback_info info, size_fn fn);
napi_value count_u64(napi_env env, napi_callback_info info, u64_fn fn);
/* (h) -> string */
napi_value text_of(napi_env env, napi_callback_info info, text_fn fn);
/* (h) -> undefined, for calls that never wait */
napi_value call_now(napi_env env, napi_callback_info info, int (*fn)(uint64_t));

/* ---- fn_*.c: each adds its functions to the exports ------------------ */

typedef struct export_fn {
    const char *name;
    napi_callback fn;
} export_fn_t;

extern const export_fn_t fn_core[];     /* library, handles, runtime, identity, trust, binding */
extern const export_fn_t fn_patterns[]; /* Req/Rep, Push/Pull, Pub/Sub */
extern const export_fn_t fn_peers[];    /* PAIR, SURVEY, BUS */
extern const export_fn_t fn_streams[];  /* streams, reply, fan-out, messages */
extern const export_fn_t fn_cursors[];  /* report orders, cursors, reporters */
extern const export_fn_t fn_radio[];    /* RADIO/DISH */
extern const export_fn_t fn_local[];    /* local binds, connection statistics */
extern const export_fn_t fn_log[];      /* the log callback (fn_log.c) */

/* ---- shared wrapper macros -------------------------------------------- */

#define NAPI_FN(name) static napi_value name(napi_env env, napi_callback_info info)

/* Starts an _async call whose arguments were converted; `call` is the
 * library call with (on_done, p, &op) appended by the caller. */
#define START_OP(shape, parent, call_expr)                                      \
    do {                                                                        \
        napi_value promise_;                                                    \
        op_t *p = op_new(env, (shape), (parent), &promise_);                   \
        if (p == NULL) return NULL;                                             \
        weida_op_t op = 0;                                                      \
        int rc_ = (call_expr);                                                  \
        return op_begin(env, p, promise_, rc_, op);                             \
    } while (0)

#endif /* WEIDA_NODE_ADDON_H */
