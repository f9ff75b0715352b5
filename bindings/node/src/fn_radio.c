/*
 * fn_radio.c — RADIO/DISH (weida.h's section of that name). A radio and
 * its segments never wait, so their functions return or throw; the dish's
 * connect, join, leave and receive return Promises.
 */
#include "addon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An integer Number within [lo, hi], else RangeError naming what. */
static bool arg_int_in(napi_env env, napi_value v, const char *what, double lo, double hi, double *out) {
    char msg[160];
    double d;
    if (napi_get_value_double(env, v, &d) != napi_ok) {
        snprintf(msg, sizeof msg, "%s must be a number", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
        return false;
    }
    if (d != floor(d) || d < lo || d > hi) {
        snprintf(msg, sizeof msg, "%s must be an integer in %.0f .. %.0f (got %g)", what, lo, hi, d);
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
        return false;
    }
    *out = d;
    return true;
}

/* A max age in seconds (null/undefined: none) as whole milliseconds; a
 * positive age below a millisecond rounds up, since 0 means none. */
static bool arg_max_age(napi_env env, napi_value v, uint64_t *ms) {
    napi_valuetype t;
    napi_typeof(env, v, &t);
    *ms = 0;
    if (t == napi_undefined || t == napi_null) return true;
    double s;
    if (napi_get_value_double(env, v, &s) != napi_ok) {
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "maxAge must be a number of seconds");
        return false;
    }
    if (!isfinite(s) || s < 0 || s > 1e12) {
        char msg[128];
        snprintf(msg, sizeof msg, "maxAge must be a finite number of seconds, not negative (got %g)", s);
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
        return false;
    }
    *ms = (uint64_t)ceil(s * 1000);
    return true;
}

/* A layer number: the library judges 0..15 (LimitExceeded); anything an
 * uint32_t cannot hold is already beyond it. */
static bool arg_layer(napi_env env, napi_value v, const char *what, uint32_t *out) {
    double d;
    if (!arg_int_in(env, v, what, 0, 9007199254740991.0, &d)) return false;
    *out = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    return true;
}

/* ---- Radio -------------------------------------------------------------- */

NAPI_FN(BindingRadio) { /* (h, path) -> radio handle */
    napi_value argv[2];
    uint64_t h, out;
    char *path;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) || !arg_text(env, argv[1], "path", &path)) {
        return NULL;
    }
    int rc = weida_binding_radio(h, path, &out);
    free(path);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(RadioSegment) { /* (h, topic, maxAge, priority, followsUpstream) -> segment handle */
    napi_value argv[5];
    uint64_t h, out;
    double priority;
    bool follows = false;
    weida_segment_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    if (!get_args(env, info, 5, argv) || !arg_handle(env, argv[0], &h) || !arg_max_age(env, argv[2], &opts.max_age_ms) ||
        !arg_int_in(env, argv[3], "priority", -32768, 32767, &priority)) {
        return NULL;
    }
    napi_get_value_bool(env, argv[4], &follows);
    opts.priority = (int32_t)priority;
    opts.follows_upstream = follows;
    char *topic;
    if (!arg_text(env, argv[1], "topic", &topic)) return NULL;
    int rc = weida_radio_segment(h, topic, &opts, &out);
    free(topic);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(RadioDatagram) { /* (h, topic, payload) -> Number reached */
    napi_value argv[3];
    uint64_t h;
    const void *data;
    size_t len, reached = 0;
    char *topic;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[2], "payload", &data, &len) || !arg_text(env, argv[1], "topic", &topic)) {
        return NULL;
    }
    int rc = weida_radio_datagram(h, topic, data, len, &reached);
    free(topic);
    return rc ? throw_code(env, rc) : js_number(env, (double)reached);
}

NAPI_FN(RadioDishCount) { return count_size(env, info, weida_radio_dish_count); }
NAPI_FN(RadioDropped) { return count_u64(env, info, weida_radio_dropped); }
NAPI_FN(RadioPath) { return text_of(env, info, weida_radio_path); }

/* One dish's drops as a plain object with camelCase counters. */
static napi_value drops_object(napi_env env, const weida_dish_drops_t *d) {
    static const char *const names[] = {"subscriberBudget", "subscriberQueue", "superseded", "expired",
                                        "tooLarge", "noDatagrams", "noParked", "layersCut"};
    const uint64_t counts[] = {d->subscriber_budget, d->subscriber_queue, d->superseded, d->expired,
                               d->too_large, d->no_datagrams, d->no_parked, d->layers_cut};
    napi_value obj, peer;
    napi_create_object(env, &obj);
    if (d->peer[0]) {
        peer = js_string(env, d->peer);
    } else {
        napi_get_null(env, &peer);
    }
    napi_set_named_property(env, obj, "peer", peer);
    napi_set_named_property(env, obj, "addr", js_string(env, d->addr));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        napi_set_named_property(env, obj, names[i], js_number(env, (double)counts[i]));
    }
    return obj;
}

NAPI_FN(RadioDishDrops) { /* (h) -> [{peer, addr, ...counters}] */
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    size_t n = 0;
    int rc = weida_radio_dish_drops(h, NULL, 0, &n);
    weida_dish_drops_t *drops = NULL;
    while (rc == WEIDA_ETRUNCATED) { /* asks again if more dishes came in between */
        free(drops);
        size_t cap = n;
        drops = calloc(cap, sizeof *drops);
        if (drops == NULL) {
            napi_throw_error(env, NULL, "weida: out of memory for the dishes' drops");
            return NULL;
        }
        drops[0].size = sizeof *drops;
        rc = weida_radio_dish_drops(h, drops, cap, &n);
    }
    if (rc != WEIDA_OK) {
        free(drops);
        return throw_code(env, rc);
    }
    napi_value out;
    napi_create_array_with_length(env, n, &out);
    for (size_t i = 0; i < n; i++) napi_set_element(env, out, (uint32_t)i, drops_object(env, &drops[i]));
    free(drops);
    return out;
}

/* ---- Segment ------------------------------------------------------------ */

NAPI_FN(SegmentWrite) { /* (h, layer, chunk) -> Number reached */
    napi_value argv[3];
    uint64_t h;
    uint32_t layer;
    const void *data;
    size_t len, reached = 0;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) || !arg_layer(env, argv[1], "layer", &layer) ||
        !arg_bytes(env, argv[2], "chunk", &data, &len)) {
        return NULL;
    }
    int rc = weida_segment_write_layer(h, layer, data, len, &reached);
    return rc ? throw_code(env, rc) : js_number(env, (double)reached);
}

NAPI_FN(SegmentFinishLayer) { /* (h, layer) */
    napi_value argv[2];
    uint64_t h;
    uint32_t layer;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) || !arg_layer(env, argv[1], "layer", &layer)) {
        return NULL;
    }
    int rc = weida_segment_finish_layer(h, layer);
    return rc ? throw_code(env, rc) : js_undefined(env);
}

NAPI_FN(SegmentFinish) { return count_size(env, info, weida_segment_finish); }
NAPI_FN(SegmentNumber) { return count_u64(env, info, weida_segment_number); }

/* ---- Dish --------------------------------------------------------------- */

NAPI_FN(RuntimeDish) { /* (rt, trust, clientIdentity) -> dish handle */
    napi_value argv[3];
    uint64_t rt, trust, id, out;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &rt) || !arg_handle(env, argv[1], &trust) ||
        !arg_handle(env, argv[2], &id)) {
        return NULL;
    }
    weida_endpoint_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    opts.client_identity = id;
    int rc = weida_runtime_dish(rt, trust, &opts, &out);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(DishConnect) { return call_with_text(env, info, "url", weida_dish_connect_async); }
NAPI_FN(DishLeave) { return call_with_text(env, info, "filter", weida_dish_leave_async); }

NAPI_FN(DishJoin) { /* (h, filter, maxAge, maxLayer, self) -> Promise<void> */
    napi_value argv[5];
    uint64_t h;
    weida_join_opts_t opts;
    memset(&opts, 0, sizeof opts);
    opts.size = sizeof opts;
    if (!get_args(env, info, 5, argv) || !arg_handle(env, argv[0], &h) || !arg_max_age(env, argv[2], &opts.max_age_ms)) {
        return rejected_by_exception(env);
    }
    napi_valuetype t;
    napi_typeof(env, argv[3], &t);
    if (t != napi_undefined && t != napi_null) {
        if (!arg_layer(env, argv[3], "maxLayer", &opts.max_layer)) return rejected_by_exception(env);
        opts.cap_layers = 1;
    }
    char *filter;
    if (!arg_text(env, argv[1], "filter", &filter)) return rejected_by_exception(env);
    napi_value promise;
    op_t *p = op_new(env, SHAPE_UNIT, argv[4], &promise);
    if (p == NULL) {
        free(filter);
        return NULL;
    }
    weida_op_t op = 0;
    int rc = weida_dish_join_async(h, filter, &opts, on_done, p, &op); /* both copied by the call */
    free(filter);
    return op_begin(env, p, promise, rc, op);
}

NAPI_FN(DishRecv) { return call_with_ceiling(env, info, "maxBytes", SHAPE_DISH, weida_dish_recv_async); }
NAPI_FN(DishPeerCount) { return count_size(env, info, weida_dish_peer_count); }

const export_fn_t fn_radio[] = {
    {"bindingRadio", BindingRadio},
    {"radioSegment", RadioSegment},
    {"radioDatagram", RadioDatagram},
    {"radioDishCount", RadioDishCount},
    {"radioDropped", RadioDropped},
    {"radioDishDrops", RadioDishDrops},
    {"radioPath", RadioPath},
    {"segmentWrite", SegmentWrite},
    {"segmentFinishLayer", SegmentFinishLayer},
    {"segmentFinish", SegmentFinish},
    {"segmentNumber", SegmentNumber},
    {"runtimeDish", RuntimeDish},
    {"dishConnect", DishConnect},
    {"dishJoin", DishJoin},
    {"dishLeave", DishLeave},
    {"dishRecv", DishRecv},
    {"dishPeerCount", DishPeerCount},
    {NULL, NULL},
};
