/*
 * values.c — library results out: payloads as Buffers (one copy out of
 * library memory, after which the msg handle is closed), meta as an
 * IncomingMeta, and the class instances a completion resolves to.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int field;
} TEXT_FIELDS[] = {
    {"endpoint", WEIDA_META_ENDPOINT},
    {"contentType", WEIDA_META_CONTENT_TYPE},
    {"topic", WEIDA_META_TOPIC},
    {"peer", WEIDA_META_PEER},
    {"peer", WEIDA_META_LOCAL_PEER}, /* a unix peer's uid; never present beside a key */
    {"traceparent", WEIDA_META_TRACEPARENT},
};

static const struct {
    const char *name;
    int field;
} UINT_FIELDS[] = {
    {"contentLen", WEIDA_META_CONTENT_LEN},
    {"sequence", WEIDA_META_SEQUENCE},
    {"missed", WEIDA_META_MISSED},
    {"reportMode", WEIDA_META_REPORT_MODE},
    {"reportId", WEIDA_META_REPORT_ID},
    {"segment", WEIDA_META_SEGMENT},
    {"layer", WEIDA_META_LAYER},
    {"deliveryAttempt", WEIDA_META_DELIVERY_ATTEMPT}, /* absent: the constructor's 1 stays */
    {"achieved", WEIDA_META_ACHIEVED},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

napi_value new_instance(napi_env env, int ctor, size_t argc, const napi_value *argv) {
    addon_t *addon = addon_of(env);
    napi_value cls, out;
    if (addon->ctor[ctor] == NULL || napi_get_reference_value(env, addon->ctor[ctor], &cls) != napi_ok) {
        napi_throw_error(env, NULL, "weida: the addon was used before setup()");
        return NULL;
    }
    if (napi_new_instance(env, cls, argc, argv, &out) != napi_ok) return NULL;
    return out;
}

napi_value buffer_copy(napi_env env, const void *data, size_t len) {
    napi_value out;
    void *copy;
    if (len == 0) {
        napi_create_buffer(env, 0, &copy, &out);
        return out;
    }
    if (napi_create_buffer_copy(env, len, data, &copy, &out) != napi_ok) return NULL;
    return out;
}

napi_value read_text(napi_env env, int (*fn)(uint64_t, char *, size_t, size_t *), uint64_t h) {
    char small[256];
    size_t needed = 0;
    int rc = fn(h, small, sizeof small, &needed);
    if (rc == WEIDA_OK) return js_string(env, small);
    if (rc != WEIDA_ETRUNCATED) return throw_code(env, rc);
    char *big = malloc(needed);
    if (big == NULL) {
        napi_throw_error(env, NULL, "out of memory");
        return NULL;
    }
    rc = fn(h, big, needed, &needed);
    napi_value out = rc == WEIDA_OK ? js_string(env, big) : throw_code(env, rc);
    free(big);
    return out;
}

static bool set(napi_env env, napi_value obj, const char *name, napi_value v) {
    return v != NULL && napi_set_named_property(env, obj, name, v) == napi_ok;
}

napi_value read_meta(napi_env env, uint64_t h) {
    napi_value meta = new_instance(env, CTOR_INCOMING_META, 0, NULL);
    if (meta == NULL) return NULL;
    char small[256];
    for (size_t i = 0; i < COUNT_OF(TEXT_FIELDS); i++) {
        size_t needed = 0;
        int present = 0;
        int rc = weida_meta_text(h, TEXT_FIELDS[i].field, small, sizeof small, &needed, &present);
        if (rc == WEIDA_ETRUNCATED) {
            char *big = malloc(needed);
            if (big == NULL) return NULL;
            rc = weida_meta_text(h, TEXT_FIELDS[i].field, big, needed, &needed, &present);
            if (rc == WEIDA_OK && present && !set(env, meta, TEXT_FIELDS[i].name, js_string(env, big))) rc = -1;
            free(big);
            if (rc != WEIDA_OK) return rc < 0 ? NULL : throw_code(env, rc);
            continue;
        }
        if (rc != WEIDA_OK) return throw_code(env, rc);
        if (present && !set(env, meta, TEXT_FIELDS[i].name, js_string(env, small))) return NULL;
    }
    for (size_t i = 0; i < COUNT_OF(UINT_FIELDS); i++) {
        uint64_t value = 0;
        int present = 0;
        int rc = weida_meta_uint(h, UINT_FIELDS[i].field, &value, &present);
        if (rc != WEIDA_OK) return throw_code(env, rc);
        if (present && !set(env, meta, UINT_FIELDS[i].name, js_number(env, (double)value))) return NULL;
    }
    /* At most 16 levels may be ordered, so one call has room. */
    uint64_t levels[16];
    size_t n = 0;
    int present = 0;
    int rc = weida_meta_report_levels(h, levels, 16, &n, &present);
    if (rc != WEIDA_OK) return throw_code(env, rc);
    if (present && !set(env, meta, "report", number_array(env, levels, n))) return NULL;
    return meta;
}

/* (payload Buffer) of a msg handle, which is closed. */
static napi_value take_payload(napi_env env, uint64_t msg) {
    const void *data = NULL;
    size_t len = 0;
    int rc = weida_msg_data(msg, &data, &len);
    napi_value out = rc == WEIDA_OK ? buffer_copy(env, data, len) : throw_code(env, rc);
    weida_close(msg);
    return out;
}

/* {payload, meta} of a msg handle, which is closed. */
static napi_value take_msg(napi_env env, uint64_t msg) {
    napi_value obj, meta = read_meta(env, msg);
    napi_value payload = meta ? take_payload(env, msg) : NULL;
    if (payload == NULL) {
        weida_close(msg);
        return NULL;
    }
    napi_create_object(env, &obj);
    set(env, obj, "payload", payload);
    set(env, obj, "meta", meta);
    return obj;
}

static napi_value take_survey(napi_env env, uint64_t survey) {
    weida_survey_counts_t counts;
    memset(&counts, 0, sizeof counts);
    counts.size = sizeof counts;
    napi_value out = NULL, argv[5];
    int rc = weida_survey_counts(survey, &counts);
    if (rc != WEIDA_OK) {
        throw_code(env, rc);
        goto done;
    }
    napi_create_array_with_length(env, counts.replies, &argv[0]);
    for (uint64_t i = 0; i < counts.replies; i++) {
        const void *data = NULL;
        size_t len = 0;
        rc = weida_survey_reply(survey, (size_t)i, &data, &len);
        if (rc != WEIDA_OK) {
            throw_code(env, rc);
            goto done;
        }
        napi_value reply = buffer_copy(env, data, len);
        if (reply == NULL || napi_set_element(env, argv[0], (uint32_t)i, reply) != napi_ok) goto done;
    }
    argv[1] = js_number(env, (double)counts.asked);
    argv[2] = js_number(env, (double)counts.failed);
    argv[3] = js_number(env, (double)counts.late);
    argv[4] = js_number(env, (double)counts.silent);
    out = new_instance(env, CTOR_SURVEY, 5, argv);
done:
    weida_close(survey);
    return out;
}

static napi_value parent_of(napi_env env, op_t *p) {
    napi_value parent = NULL;
    if (p->parent) napi_get_reference_value(env, p->parent, &parent);
    if (parent == NULL) napi_get_undefined(env, &parent);
    return parent;
}

/* new Class(handle, parent) */
static napi_value child(napi_env env, int ctor, uint64_t h, napi_value parent) {
    napi_value argv[2] = {js_handle(env, h), parent};
    return new_instance(env, ctor, 2, argv);
}

static napi_value pair_object(napi_env env, const char *k1, napi_value v1, const char *k2, napi_value v2) {
    if (v1 == NULL || v2 == NULL) return NULL;
    napi_value obj;
    napi_create_object(env, &obj);
    set(env, obj, k1, v1);
    set(env, obj, k2, v2);
    return obj;
}

static napi_value take_request(napi_env env, op_t *p) {
    const void *data = NULL;
    size_t len = 0;
    int rc = weida_request_payload(p->a, &data, &len);
    if (rc != WEIDA_OK) return throw_code(env, rc);
    napi_value argv[4] = {js_handle(env, p->a), parent_of(env, p), buffer_copy(env, data, len),
                          read_meta(env, p->a)};
    if (argv[2] == NULL || argv[3] == NULL) return NULL;
    return new_instance(env, CTOR_REQUEST, 4, argv);
}

/* {payload, meta, reporter}: the reporter is owned (by its object) before
 * anything else can fail, and the msg is closed. */
static napi_value take_reporting(napi_env env, op_t *p) {
    napi_value reporter;
    if (p->b) {
        reporter = child(env, CTOR_REPORTER, p->b, parent_of(env, p));
        if (reporter == NULL) return NULL;
        p->b = 0;
    } else {
        napi_get_null(env, &reporter);
    }
    napi_value msg = take_msg(env, p->a);
    if (msg == NULL || !set(env, msg, "reporter", reporter)) return NULL;
    return msg;
}

napi_value shape_value(napi_env env, op_t *p) {
    switch (p->shape) {
    case SHAPE_UNIT:
        return js_undefined(env);
    case SHAPE_COUNT:
        return js_number(env, (double)p->a);
    case SHAPE_DRAIN:
        return pair_object(env, "delivered", js_number(env, (double)p->a), "outstanding",
                           js_number(env, (double)p->b));
    case SHAPE_PAYLOAD:
        return take_payload(env, p->a);
    case SHAPE_MSG:
        return take_msg(env, p->a);
    case SHAPE_REQUEST:
        return take_request(env, p);
    case SHAPE_OSTREAM:
        return child(env, CTOR_OUTGOING_STREAM, p->a, parent_of(env, p));
    case SHAPE_EXCHANGE: {
        napi_value parent = parent_of(env, p);
        return pair_object(env, "stream", child(env, CTOR_OUTGOING_STREAM, p->a, parent), "reply",
                           child(env, CTOR_REPLY, p->b, parent));
    }
    case SHAPE_ISTREAM: {
        napi_value meta = read_meta(env, p->a);
        if (meta == NULL) return NULL;
        return pair_object(env, "stream", child(env, CTOR_INCOMING_STREAM, p->a, parent_of(env, p)),
                           "meta", meta);
    }
    case SHAPE_SURVEY:
        return take_survey(env, p->a);
    case SHAPE_READ:
        return buffer_copy(env, p->buf, p->code == WEIDA_END ? 0 : (size_t)p->a);
    case SHAPE_CURSORS:
        if (p->a == 0) {
            napi_value none;
            napi_get_null(env, &none);
            return none;
        }
        return child(env, CTOR_CURSORS, p->a, js_undefined(env));
    case SHAPE_REPORTING:
        return take_reporting(env, p);
    case SHAPE_DISH: {
        napi_value msg = take_msg(env, p->a);
        const char *kind = p->b == WEIDA_DISH_DATAGRAM ? "datagram" : "segment";
        if (msg == NULL || !set(env, msg, "kind", js_string(env, kind))) return NULL;
        return msg;
    }
    case SHAPE_CHANGED: {
        napi_value moved;
        napi_get_boolean(env, p->code == WEIDA_OK, &moved);
        return moved;
    }
    }
    napi_throw_error(env, NULL, "weida: unknown result shape");
    return NULL;
}

int shape_owned(int shape) {
    switch (shape) {
    case SHAPE_PAYLOAD: case SHAPE_MSG: case SHAPE_REQUEST: case SHAPE_OSTREAM:
    case SHAPE_ISTREAM: case SHAPE_SURVEY: case SHAPE_DISH:
        return 1;
    case SHAPE_EXCHANGE: case SHAPE_REPORTING:
        return 2;
    default:
        return 0;
    }
}

bool shape_ends(int shape) {
    return shape == SHAPE_READ || shape == SHAPE_CHANGED;
}

napi_value number_array(napi_env env, const uint64_t *words, size_t n) {
    napi_value out;
    napi_create_array_with_length(env, n, &out);
    for (size_t i = 0; i < n; i++) napi_set_element(env, out, (uint32_t)i, js_number(env, (double)words[i]));
    return out;
}
