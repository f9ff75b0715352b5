/*
 * fn_cursors.c — completion reports: the ordering forms of send, open and
 * receive, a sender's cursors and a receiver's reporter (weida.h's "Cursors
 * and reporters" and the *_reporting calls of Push/Pull, Pub/Sub and PAIR).
 */
#include "addon.h"

#include <stdlib.h>

/* At most 16 levels may be ordered, so one call nearly always has room. */
#define ROOM 16

typedef int (*send_reporting_fn)(uint64_t, const void *, size_t, const uint64_t *, size_t, int,
                                 weida_done_fn, void *, weida_op_t *);
typedef int (*open_reporting_fn)(uint64_t, const uint64_t *, size_t, int, weida_done_fn, void *,
                                 weida_op_t *);

/* (h, payload, levels, mode, self) -> Promise<Cursors | null> */
static napi_value send_reporting(napi_env env, napi_callback_info info, send_reporting_fn fn) {
    napi_value argv[5];
    uint64_t h, *levels;
    const void *data;
    size_t len, n;
    int mode;
    if (!get_args(env, info, 5, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "payload", &data, &len) || !arg_order(env, argv[2], argv[3], &levels, &n, &mode)) {
        return rejected_by_exception(env);
    }
    napi_value promise;
    op_t *p = op_new(env, SHAPE_CURSORS, argv[4], &promise);
    if (p == NULL) {
        free(levels);
        return NULL;
    }
    weida_op_t op = 0;
    int rc = fn(h, data, len, levels, n, mode, on_done, p, &op); /* the library copies the order */
    free(levels);
    return op_begin(env, p, promise, rc, op);
}

/* (h, levels, mode, self) -> Promise<OutgoingStream> */
static napi_value open_reporting(napi_env env, napi_callback_info info, open_reporting_fn fn) {
    napi_value argv[4];
    uint64_t h, *levels;
    size_t n;
    int mode;
    if (!get_args(env, info, 4, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_order(env, argv[1], argv[2], &levels, &n, &mode)) {
        return rejected_by_exception(env);
    }
    napi_value promise;
    op_t *p = op_new(env, SHAPE_OSTREAM, argv[3], &promise);
    if (p == NULL) {
        free(levels);
        return NULL;
    }
    weida_op_t op = 0;
    int rc = fn(h, levels, n, mode, on_done, p, &op);
    free(levels);
    return op_begin(env, p, promise, rc, op);
}

NAPI_FN(PusherSendReporting) { return send_reporting(env, info, weida_pusher_send_reporting_async); }
NAPI_FN(PusherOpenReporting) { return open_reporting(env, info, weida_pusher_open_reporting_async); }
NAPI_FN(PullerRecvReporting) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_REPORTING, weida_puller_recv_reporting_async);
}
NAPI_FN(SubscriberRecvReporting) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_REPORTING, weida_subscriber_recv_reporting_async);
}
NAPI_FN(PairedSendReporting) { return send_reporting(env, info, weida_paired_send_reporting_async); }
NAPI_FN(PairedOpenReporting) { return open_reporting(env, info, weida_paired_open_reporting_async); }
NAPI_FN(PairedRecvReporting) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_REPORTING, weida_paired_recv_reporting_async);
}

/* (h) -> handle, 0n when nothing was ordered (or it was handed out already) */
static napi_value handed_out(napi_env env, napi_callback_info info, int (*fn)(uint64_t, uint64_t *)) {
    napi_value argv[1];
    uint64_t h, out = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = fn(h, &out);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(OstreamCursors) { return handed_out(env, info, weida_ostream_cursors); }
NAPI_FN(IstreamReporter) { return handed_out(env, info, weida_istream_reporter); }

/* ---- cursors ---------------------------------------------------------- */

NAPI_FN(CursorsChanged) { /* (h, self) -> Promise<boolean>: false once the report ended */
    napi_value argv[2];
    uint64_t h;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h)) return rejected_by_exception(env);
    /* A negative deadline waits without one: the caller's AbortSignal is the timeout. */
    START_OP(SHAPE_CHANGED, argv[1], weida_cursors_changed_async(h, -1.0, on_done, p, &op));
}

NAPI_FN(CursorsOffset) { /* (h, level) -> Number or null */
    napi_value argv[2];
    uint64_t h, level, offset = 0;
    int present = 0;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) || !arg_word(env, argv[1], "level", &level)) {
        return NULL;
    }
    int rc = weida_cursors_offset(h, level, &offset, &present);
    if (rc) return throw_code(env, rc);
    if (present) return js_number(env, (double)offset);
    napi_value none;
    napi_get_null(env, &none);
    return none;
}

NAPI_FN(CursorsSnapshot) { /* (h) -> [levels, offsets] */
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    uint64_t levels[ROOM], offsets[ROOM];
    uint64_t *lv = levels, *of = offsets;
    size_t n = 0;
    int rc = weida_cursors_snapshot(h, lv, of, ROOM, &n);
    if (rc == WEIDA_ETRUNCATED) { /* more levels than an order can hold: take them all */
        lv = malloc(n * sizeof *lv);
        of = malloc(n * sizeof *of);
        rc = (lv && of) ? weida_cursors_snapshot(h, lv, of, n, &n) : WEIDA_EINTERNAL;
    }
    napi_value out = NULL;
    if (rc == WEIDA_OK) {
        napi_create_array_with_length(env, 2, &out);
        napi_set_element(env, out, 0, number_array(env, lv, n));
        napi_set_element(env, out, 1, number_array(env, of, n));
    } else {
        throw_code(env, rc);
    }
    if (lv != levels) free(lv);
    if (of != offsets) free(of);
    return out;
}

/* ---- reporters -------------------------------------------------------- */

NAPI_FN(ReporterReport) { /* (h, level, offset) */
    napi_value argv[3];
    uint64_t h, level, offset;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) || !arg_word(env, argv[1], "level", &level) ||
        !arg_word(env, argv[2], "offset", &offset)) {
        return NULL;
    }
    int rc = weida_reporter_report(h, level, offset);
    return rc ? throw_code(env, rc) : js_undefined(env);
}

NAPI_FN(ReporterFinish) { return call_now(env, info, weida_reporter_finish); }

NAPI_FN(ReporterLevels) { /* (h) -> Number[] */
    napi_value argv[1];
    uint64_t h, levels[ROOM];
    size_t n = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = weida_reporter_levels(h, levels, ROOM, &n);
    return rc ? throw_code(env, rc) : number_array(env, levels, n);
}

NAPI_FN(ReporterMode) {
    napi_value argv[1];
    uint64_t h;
    int mode = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = weida_reporter_mode(h, &mode);
    return rc ? throw_code(env, rc) : js_number(env, mode);
}

const export_fn_t fn_cursors[] = {
    {"pusherSendReporting", PusherSendReporting},
    {"pusherOpenReporting", PusherOpenReporting},
    {"pullerRecvReporting", PullerRecvReporting},
    {"subscriberRecvReporting", SubscriberRecvReporting},
    {"pairedSendReporting", PairedSendReporting},
    {"pairedOpenReporting", PairedOpenReporting},
    {"pairedRecvReporting", PairedRecvReporting},
    {"ostreamCursors", OstreamCursors},
    {"istreamReporter", IstreamReporter},
    {"cursorsChanged", CursorsChanged},
    {"cursorsOffset", CursorsOffset},
    {"cursorsSnapshot", CursorsSnapshot},
    {"reporterReport", ReporterReport},
    {"reporterFinish", ReporterFinish},
    {"reporterLevels", ReporterLevels},
    {"reporterMode", ReporterMode},
    {NULL, NULL},
};
