/*
 * fn_common.c — the argument shapes most exported functions share, so each
 * fn_*.c entry is one line naming its library function.
 */
#include "addon.h"

#include <stdlib.h>

napi_value call_with_text(napi_env env, napi_callback_info info, const char *what, async_url_fn fn) {
    napi_value argv[3];
    uint64_t h;
    char *text;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) || !arg_text(env, argv[1], what, &text)) {
        return rejected_by_exception(env);
    }
    napi_value promise;
    op_t *p = op_new(env, SHAPE_UNIT, argv[2], &promise);
    if (p == NULL) {
        free(text);
        return NULL;
    }
    weida_op_t op = 0;
    int rc = fn(h, text, on_done, p, &op); /* the library copies the text */
    free(text);
    return op_begin(env, p, promise, rc, op);
}

napi_value call_with_bytes(napi_env env, napi_callback_info info, const char *what, int shape,
                           async_bytes_fn fn) {
    napi_value argv[3];
    uint64_t h;
    const void *data;
    size_t len;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], what, &data, &len)) {
        return rejected_by_exception(env);
    }
    START_OP(shape, argv[2], fn(h, data, len, on_done, p, &op));
}

napi_value call_with_ceiling(napi_env env, napi_callback_info info, const char *what, int shape,
                             async_ceiling_fn fn) {
    napi_value argv[3];
    uint64_t h;
    size_t max;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_ceiling(env, argv[1], what, &max)) {
        return rejected_by_exception(env);
    }
    START_OP(shape, argv[2], fn(h, max, on_done, p, &op));
}

napi_value call_plain(napi_env env, napi_callback_info info, int shape, async_plain_fn fn) {
    napi_value argv[2];
    uint64_t h;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h)) return rejected_by_exception(env);
    START_OP(shape, argv[1], fn(h, on_done, p, &op));
}

napi_value count_size(napi_env env, napi_callback_info info, size_fn fn) {
    napi_value argv[1];
    uint64_t h;
    size_t n = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = fn(h, &n);
    return rc ? throw_code(env, rc) : js_number(env, (double)n);
}

napi_value count_u64(napi_env env, napi_callback_info info, u64_fn fn) {
    napi_value argv[1];
    uint64_t h, n = 0;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = fn(h, &n);
    return rc ? throw_code(env, rc) : js_number(env, (double)n);
}

napi_value text_of(napi_env env, napi_callback_info info, text_fn fn) {
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    return read_text(env, fn, h);
}

napi_value call_now(napi_env env, napi_callback_info info, int (*fn)(uint64_t)) {
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    int rc = fn(h);
    return rc ? throw_code(env, rc) : js_undefined(env);
}
