/*
 * fn_core.c — library facts, handles and ops, runtime, identity, trust and
 * binding. Calls that never wait return their value or throw; the one that
 * waits (drain) returns a Promise.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

/* ---- library and handles -------------------------------------------- */

NAPI_FN(Setup) { /* setup({makeError, IncomingMeta, Request, ...}) */
    napi_value argv[1];
    if (!get_args(env, info, 1, argv)) return NULL;
    addon_t *addon = addon_of(env);
    static const char *names[CTOR_COUNT] = {"IncomingMeta", "Request", "OutgoingStream", "IncomingStream",
                                            "Reply", "Survey", "Cursors", "Reporter"};
    napi_value v;
    if (napi_get_named_property(env, argv[0], "makeError", &v) != napi_ok) return NULL;
    if (addon->make_error) napi_delete_reference(env, addon->make_error);
    napi_create_reference(env, v, 1, &addon->make_error);
    for (int i = 0; i < CTOR_COUNT; i++) {
        if (napi_get_named_property(env, argv[0], names[i], &v) != napi_ok) return NULL;
        if (addon->ctor[i]) napi_delete_reference(env, addon->ctor[i]);
        napi_create_reference(env, v, 1, &addon->ctor[i]);
    }
    return js_undefined(env);
}

NAPI_FN(Version) { (void)info; return js_string(env, weida_version()); }
NAPI_FN(AbiVersion) { (void)info; return js_number(env, weida_abi_version()); }
NAPI_FN(WireVersion) { (void)info; return js_number(env, (double)weida_wire_version()); }
NAPI_FN(Alpn) { (void)info; return js_string(env, weida_alpn()); }
NAPI_FN(StrError) {
    napi_value argv[1];
    int32_t code = 0;
    if (!get_args(env, info, 1, argv) || napi_get_value_int32(env, argv[0], &code) != napi_ok) return NULL;
    return js_string(env, weida_strerror(code));
}

NAPI_FN(Close) {
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    if (h) weida_close(h); /* a second close is EBADHANDLE: harmless, so not reported */
    return js_undefined(env);
}

NAPI_FN(OpCancel) {
    napi_value argv[1];
    uint64_t op;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &op)) return NULL;
    weida_op_cancel(op); /* stale once it finished: harmless */
    return js_undefined(env);
}

NAPI_FN(LastOp) { (void)info; return js_handle(env, addon_of(env)->last_op); }
NAPI_FN(PendingCount) { (void)info; return js_number(env, (double)addon_of(env)->pending); }

NAPI_FN(HandlesLive) {
    (void)info;
    uint64_t n = 0;
    int rc = weida_handles_live(&n);
    return rc ? throw_code(env, rc) : js_number(env, (double)n);
}

/* ---- runtime ---------------------------------------------------------- */

/* A guarantee set from lib/guarantees.js: null (none given) or
 * [ordering, deduplication, dedupWindowMs, acknowledgement], already
 * checked there; the library judges the levels. */
static bool arg_guarantees(napi_env env, napi_value v, weida_guarantees_t *g, bool *given) {
    napi_valuetype t;
    napi_typeof(env, v, &t);
    *given = t != napi_null && t != napi_undefined;
    if (!*given) return true;
    memset(g, 0, sizeof *g);
    g->size = sizeof *g;
    int32_t levels[4] = {0};
    for (uint32_t i = 0; i < 4; i++) {
        napi_value e;
        double d = 0;
        if (napi_get_element(env, v, i, &e) != napi_ok || napi_get_value_double(env, e, &d) != napi_ok) {
            napi_throw_type_error(env, NULL, "a guarantee set must be an array of 4 numbers");
            return false;
        }
        if (i == 2) {
            g->dedup_window_ms = (uint64_t)d;
        } else {
            levels[i] = (int32_t)d;
        }
    }
    g->ordering = levels[0];
    g->deduplication = levels[1];
    g->acknowledgement = levels[3];
    return true;
}

NAPI_FN(RuntimeNew) { /* (workerThreads, datagrams, pathReport, offered, required) */
    napi_value argv[5];
    if (!get_args(env, info, 5, argv)) return NULL;
    weida_runtime_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    bool datagrams = false, path_report = false;
    uint32_t workers = 1;
    napi_get_value_uint32(env, argv[0], &workers);
    napi_get_value_bool(env, argv[1], &datagrams);
    napi_get_value_bool(env, argv[2], &path_report);
    opts.worker_threads = workers;
    opts.datagrams = datagrams;
    opts.path_report = path_report;
    weida_guarantees_t offered, required;
    bool has_offered, has_required;
    if (!arg_guarantees(env, argv[3], &offered, &has_offered) ||
        !arg_guarantees(env, argv[4], &required, &has_required)) {
        return NULL;
    }
    opts.offered = has_offered ? &offered : NULL;
    opts.required = has_required ? &required : NULL;
    uint64_t rt;
    int rc = weida_runtime_new(&opts, &rt);
    return rc ? throw_code(env, rc) : js_handle(env, rt);
}

NAPI_FN(RuntimeSuppressedDuplicates) { /* (rt) */
    napi_value argv[1];
    uint64_t rt, n = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &rt)) return NULL;
    int rc = weida_runtime_suppressed_duplicates(rt, &n);
    return rc ? throw_code(env, rc) : js_number(env, (double)n);
}

NAPI_FN(RuntimeDrain) { /* (rt, seconds, self) -> Promise<{delivered, outstanding}> */
    napi_value argv[3];
    uint64_t rt;
    double seconds;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &rt) ||
        !arg_seconds(env, argv[1], "seconds", &seconds)) {
        return rejected_by_exception(env);
    }
    START_OP(SHAPE_DRAIN, argv[2], weida_runtime_drain_async(rt, seconds, on_done, p, &op));
}

typedef int (*dialler_fn)(uint64_t, uint64_t, const weida_endpoint_opts_t *, uint64_t *);

/* (rt, trust, clientIdentity or 0n) -> handle */
static napi_value dialler(napi_env env, napi_callback_info info, dialler_fn fn) {
    napi_value argv[3];
    uint64_t rt, trust, identity = 0;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &rt) || !arg_handle(env, argv[1], &trust) ||
        !arg_handle(env, argv[2], &identity)) {
        return NULL;
    }
    weida_endpoint_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.client_identity = identity;
    uint64_t out;
    int rc = fn(rt, trust, &opts, &out);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(RuntimeRequester) { return dialler(env, info, weida_runtime_requester); }
NAPI_FN(RuntimePusher) { return dialler(env, info, weida_runtime_pusher); }
NAPI_FN(RuntimeSubscriber) { return dialler(env, info, weida_runtime_subscriber); }
NAPI_FN(RuntimePair) { return dialler(env, info, weida_runtime_pair); }
NAPI_FN(RuntimeSurveyor) { return dialler(env, info, weida_runtime_surveyor); }

/* ---- identity and trust ----------------------------------------------- */

NAPI_FN(IdentityGenerate) {
    (void)info;
    uint64_t out;
    int rc = weida_identity_generate(&out);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(IdentityGenerateFor) { /* (names: string[]) */
    napi_value argv[1];
    if (!get_args(env, info, 1, argv)) return NULL;
    uint32_t count = 0;
    bool is_array = false;
    napi_is_array(env, argv[0], &is_array);
    if (!is_array) {
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "names must be an array of strings");
        return NULL;
    }
    napi_get_array_length(env, argv[0], &count);
    char **names = calloc(count ? count : 1, sizeof *names);
    napi_value result = NULL;
    uint32_t got = 0;
    for (; got < count; got++) {
        napi_value name;
        napi_get_element(env, argv[0], got, &name);
        if (!arg_text(env, name, "each name", &names[got])) goto done;
    }
    uint64_t out;
    int rc = weida_identity_generate_for((const char *const *)names, count, &out);
    result = rc ? throw_code(env, rc) : js_handle(env, out);
done:
    for (uint32_t i = 0; i < got; i++) free(names[i]);
    free(names);
    return result;
}

/* fn(text, &out) -> handle; what names the text argument. */
static napi_value from_text(napi_env env, napi_callback_info info, const char *what,
                            int (*fn)(const char *, uint64_t *)) {
    napi_value argv[1];
    char *s;
    if (!get_args(env, info, 1, argv) || !arg_text(env, argv[0], what, &s)) return NULL;
    uint64_t out;
    int rc = fn(s, &out);
    free(s);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(IdentityFromPemFile) { return from_text(env, info, "path", weida_identity_from_pem_file); }
NAPI_FN(TrustPin) { return from_text(env, info, "fingerprint", weida_trust_pin); }
NAPI_FN(TrustAnchorFile) { return from_text(env, info, "path", weida_trust_anchor_file); }
NAPI_FN(TrustPinFile) { return from_text(env, info, "path", weida_trust_pin_file); }

NAPI_FN(TrustByAddress) {
    (void)info;
    uint64_t out;
    int rc = weida_trust_by_address(&out);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(IdentityFingerprint) { return text_of(env, info, weida_identity_fingerprint); }

/* ---- binding ------------------------------------------------------------ */

NAPI_FN(BindQuic) { /* (rt, addr, identity) -> handle */
    napi_value argv[3];
    uint64_t rt, id;
    char *addr;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &rt) || !arg_handle(env, argv[2], &id) ||
        !arg_text(env, argv[1], "addr", &addr)) {
        return NULL;
    }
    uint64_t out;
    int rc = weida_bind_quic(rt, addr, id, NULL, &out);
    free(addr);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(BindingLocalAddr) { return text_of(env, info, weida_binding_local_addr); }
NAPI_FN(BindingFingerprint) { return text_of(env, info, weida_binding_fingerprint); }

NAPI_FN(BindingUrl) { /* (binding, path) */
    napi_value argv[2];
    uint64_t b;
    char *path;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &b) || !arg_text(env, argv[1], "path", &path)) {
        return NULL;
    }
    char small[512];
    size_t needed = 0;
    napi_value out = NULL;
    int rc = weida_binding_url(b, path, small, sizeof small, &needed);
    if (rc == WEIDA_OK) {
        out = js_string(env, small);
    } else if (rc == WEIDA_ETRUNCATED) {
        char *big = malloc(needed);
        rc = big ? weida_binding_url(b, path, big, needed, &needed) : WEIDA_EINTERNAL;
        out = rc ? throw_code(env, rc) : js_string(env, big);
        free(big);
    } else {
        throw_code(env, rc);
    }
    free(path);
    return out;
}

typedef int (*register_fn)(uint64_t, const char *, uint64_t *);

/* (binding, path) -> handle */
static napi_value registration(napi_env env, napi_callback_info info, register_fn fn) {
    napi_value argv[2];
    uint64_t b;
    char *path;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &b) || !arg_text(env, argv[1], "path", &path)) {
        return NULL;
    }
    uint64_t out;
    int rc = fn(b, path, &out);
    free(path);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(BindingReplier) { return registration(env, info, weida_binding_replier); }
NAPI_FN(BindingPuller) { return registration(env, info, weida_binding_puller); }
NAPI_FN(BindingPublisher) { return registration(env, info, weida_binding_publisher); }
NAPI_FN(BindingPair) { return registration(env, info, weida_binding_pair); }
NAPI_FN(BindingRespondent) { return registration(env, info, weida_binding_respondent); }

NAPI_FN(BindingBus) { /* (binding, path, trust) -> handle */
    napi_value argv[3];
    uint64_t b, trust;
    char *path;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &b) || !arg_handle(env, argv[2], &trust) ||
        !arg_text(env, argv[1], "path", &path)) {
        return NULL;
    }
    uint64_t out;
    int rc = weida_binding_bus(b, path, trust, NULL, &out);
    free(path);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

const export_fn_t fn_core[] = {
    {"setup", Setup},
    {"version", Version},
    {"abiVersion", AbiVersion},
    {"wireVersion", WireVersion},
    {"alpn", Alpn},
    {"strerror", StrError},
    {"close", Close},
    {"opCancel", OpCancel},
    {"lastOp", LastOp},
    {"pendingCount", PendingCount},
    {"handlesLive", HandlesLive},
    {"runtimeNew", RuntimeNew},
    {"runtimeSuppressedDuplicates", RuntimeSuppressedDuplicates},
    {"runtimeDrain", RuntimeDrain},
    {"runtimeRequester", RuntimeRequester},
    {"runtimePusher", RuntimePusher},
    {"runtimeSubscriber", RuntimeSubscriber},
    {"runtimePair", RuntimePair},
    {"runtimeSurveyor", RuntimeSurveyor},
    {"identityGenerate", IdentityGenerate},
    {"identityGenerateFor", IdentityGenerateFor},
    {"identityFromPemFile", IdentityFromPemFile},
    {"identityFingerprint", IdentityFingerprint},
    {"trustByAddress", TrustByAddress},
    {"trustPin", TrustPin},
    {"trustAnchorFile", TrustAnchorFile},
    {"trustPinFile", TrustPinFile},
    {"bindQuic", BindQuic},
    {"bindingLocalAddr", BindingLocalAddr},
    {"bindingFingerprint", BindingFingerprint},
    {"bindingUrl", BindingUrl},
    {"bindingReplier", BindingReplier},
    {"bindingPuller", BindingPuller},
    {"bindingPublisher", BindingPublisher},
    {"bindingPair", BindingPair},
    {"bindingRespondent", BindingRespondent},
    {"bindingBus", BindingBus},
    {NULL, NULL},
};
