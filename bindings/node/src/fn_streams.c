/*
 * fn_streams.c — outgoing and incoming streams, the reply half of an
 * exchange, and streamed fan-outs (weida.h's "Streams" and the fan-out part
 * of "Pub/Sub").
 */
#include "addon.h"

#include <stdlib.h>

/* A read allocates its piece buffer up front; a piece may be shorter than
 * maxBytes, so a huge ceiling need not mean a huge buffer. */
#define MAX_PIECE ((size_t)1 << 20)

NAPI_FN(OstreamWrite) { return call_with_bytes(env, info, "chunk", SHAPE_UNIT, weida_ostream_write_async); }

NAPI_FN(OstreamFinish) { return call_plain(env, info, SHAPE_UNIT, weida_ostream_finish_async); }

NAPI_FN(OstreamCancel) { return call_now(env, info, weida_ostream_cancel); }

NAPI_FN(IstreamRead) { /* (h, maxBytes, self) -> Promise<Buffer>, empty at the end */
    napi_value argv[3];
    uint64_t h;
    size_t max;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_ceiling(env, argv[1], "maxBytes", &max)) {
        return rejected_by_exception(env);
    }
    size_t cap = max < MAX_PIECE ? max : MAX_PIECE;
    napi_value promise;
    op_t *p = op_new(env, SHAPE_READ, argv[2], &promise);
    if (p == NULL) return NULL;
    /* Owned by the op: the library writes into it until the callback. */
    p->buf = cap ? malloc(cap) : NULL;
    weida_op_t op = 0;
    int rc = (cap && p->buf == NULL) ? WEIDA_EINTERNAL
                                     : weida_istream_read_async(h, p->buf, cap, on_done, p, &op);
    return op_begin(env, p, promise, rc, op);
}

NAPI_FN(IstreamCollect) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_PAYLOAD, weida_istream_collect_async);
}

NAPI_FN(ReplyRecv) { return call_plain(env, info, SHAPE_ISTREAM, weida_reply_recv_async); }

NAPI_FN(FanoutTopic) { return text_of(env, info, weida_fanout_topic); }

NAPI_FN(FanoutWriteWithin) { /* (h, chunk, seconds, self) -> Promise<Number left> */
    napi_value argv[4];
    uint64_t h;
    const void *data;
    size_t len;
    double seconds;
    if (!get_args(env, info, 4, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "chunk", &data, &len) || !arg_seconds(env, argv[2], "seconds", &seconds)) {
        return rejected_by_exception(env);
    }
    START_OP(SHAPE_COUNT, argv[3], weida_fanout_write_within_async(h, data, len, seconds, on_done, p, &op));
}

NAPI_FN(FanoutWriteNow) { /* (h, chunk) -> Number left */
    napi_value argv[2];
    uint64_t h;
    const void *data;
    size_t len, left = 0;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "chunk", &data, &len)) {
        return NULL;
    }
    int rc = weida_fanout_write_now(h, data, len, &left);
    return rc ? throw_code(env, rc) : js_number(env, (double)left);
}

NAPI_FN(FanoutSubscribers) { return count_size(env, info, weida_fanout_subscribers); }
NAPI_FN(FanoutFinish) { return count_size(env, info, weida_fanout_finish); }

const export_fn_t fn_streams[] = {
    {"ostreamWrite", OstreamWrite},
    {"ostreamFinish", OstreamFinish},
    {"ostreamCancel", OstreamCancel},
    {"istreamRead", IstreamRead},
    {"istreamCollect", IstreamCollect},
    {"replyRecv", ReplyRecv},
    {"fanoutTopic", FanoutTopic},
    {"fanoutWriteWithin", FanoutWriteWithin},
    {"fanoutWriteNow", FanoutWriteNow},
    {"fanoutSubscribers", FanoutSubscribers},
    {"fanoutFinish", FanoutFinish},
    {NULL, NULL},
};
