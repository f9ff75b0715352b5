/*
 * args.c — JavaScript values in, errors out.
 *
 * Every bad argument is a clear JavaScript error naming the argument: a
 * string where bytes are required is a TypeError (no encoding is guessed),
 * a negative ceiling a RangeError. Library failures become the Error
 * subclass the JavaScript layer's makeError builds for the code.
 */
#include "addon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JavaScript Number holds integers exactly up to 2^53. */
#define MAX_SAFE_INTEGER 9007199254740991.0

static const char *type_name(napi_env env, napi_value v) {
    napi_valuetype t = napi_undefined;
    napi_typeof(env, v, &t);
    switch (t) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "boolean";
    case napi_number: return "number";
    case napi_string: return "string";
    case napi_symbol: return "symbol";
    case napi_object: return "object";
    case napi_function: return "function";
    case napi_external: return "external";
    case napi_bigint: return "bigint";
    }
    return "value";
}

static bool type_error(napi_env env, const char *what, const char *expected, napi_value v) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s must be %s, not %s", what, expected, type_name(env, v));
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
    return false;
}

bool get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
    size_t argc = n;
    return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok;
}

bool arg_handle(napi_env env, napi_value v, uint64_t *out) {
    bool lossless;
    if (napi_get_value_bigint_uint64(env, v, out, &lossless) != napi_ok) {
        return type_error(env, "handle", "a bigint (an object of this package)", v);
    }
    return true;
}

bool arg_bytes(napi_env env, napi_value v, const char *what, const void **data, size_t *len) {
    bool is = false;
    napi_is_typedarray(env, v, &is);
    if (is) {
        napi_typedarray_type type;
        size_t count, offset;
        napi_value ab;
        void *p;
        napi_get_typedarray_info(env, v, &type, &count, &p, &ab, &offset);
        size_t unit = 1;
        switch (type) {
        case napi_int16_array: case napi_uint16_array: unit = 2; break;
        case napi_int32_array: case napi_uint32_array: case napi_float32_array: unit = 4; break;
        case napi_float64_array: case napi_bigint64_array: case napi_biguint64_array: unit = 8; break;
        default: break;
        }
        *data = p;
        *len = count * unit;
        return true;
    }
    napi_is_dataview(env, v, &is);
    if (is) {
        void *p;
        napi_value ab;
        size_t offset;
        napi_get_dataview_info(env, v, len, &p, &ab, &offset);
        *data = p;
        return true;
    }
    napi_is_arraybuffer(env, v, &is);
    if (is) {
        void *p;
        napi_get_arraybuffer_info(env, v, &p, len);
        *data = p;
        return true;
    }
    napi_valuetype t;
    napi_typeof(env, v, &t);
    if (t == napi_string) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%s must be a Buffer or Uint8Array, not string (encode it first, e.g. "
                 "Buffer.from(text); weida guesses no encoding)", what);
        napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
        return false;
    }
    return type_error(env, what, "a Buffer or Uint8Array", v);
}

bool arg_text(napi_env env, napi_value v, const char *what, char **out) {
    size_t len;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
        return type_error(env, what, "a string", v);
    }
    char *s = malloc(len + 1);
    if (s == NULL) {
        napi_throw_error(env, NULL, "out of memory");
        return false;
    }
    napi_get_value_string_utf8(env, v, s, len + 1, &len);
    if (strlen(s) != len) {
        free(s);
        char msg[256];
        snprintf(msg, sizeof msg, "%s must not contain a NUL character", what);
        napi_throw_range_error(env, "ERR_INVALID_ARG_VALUE", msg);
        return false;
    }
    *out = s;
    return true;
}

/* A count of units (bytes, messages): a non-negative integer Number, or a
 * BigInt, which above 2^64-1 is 2^64-1 (no bound to speak of). */
static bool arg_unsigned(napi_env env, napi_value v, const char *what, const char *unit, uint64_t *out) {
    napi_valuetype t;
    napi_typeof(env, v, &t);
    char msg[256];
    if (t == napi_bigint) {
        int sign = 0;
        size_t words = 1;
        uint64_t low = 0;
        napi_get_value_bigint_words(env, v, &sign, &words, &low);
        if (sign) {
            snprintf(msg, sizeof msg, "%s must not be negative", what);
            napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
            return false;
        }
        *out = words > 1 ? UINT64_MAX : low;
        return true;
    }
    if (t != napi_number) {
        snprintf(msg, sizeof msg, "a number of %s", unit);
        return type_error(env, what, msg, v);
    }
    double d;
    napi_get_value_double(env, v, &d);
    if (!(d >= 0) || d != floor(d) || d > MAX_SAFE_INTEGER) {
        snprintf(msg, sizeof msg, "%s must be a non-negative integer number of %s (got %g)", what, unit, d);
        napi_throw_range_error(env, "ERR_OUT_OF_RANGE", msg);
        return false;
    }
    *out = (uint64_t)d;
    return true;
}

bool arg_ceiling(napi_env env, napi_value v, const char *what, size_t *out) {
    uint64_t n;
    if (!arg_unsigned(env, v, what, "bytes", &n)) return false;
    *out = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    return true;
}

bool arg_credit(napi_env env, napi_value v, const char *what, uint64_t *out) {
    return arg_unsigned(env, v, what, "messages", out);
}

bool arg_seconds(napi_env env, napi_value v, const char *what, double *out) {
    if (napi_get_value_double(env, v, out) != napi_ok) {
        return type_error(env, what, "a number of seconds", v);
    }
    return true;
}

char *last_error_text(void) {
    size_t needed = 0;
    char small[256];
    int rc = weida_last_error(small, sizeof small, &needed);
    if (rc == WEIDA_OK) return strdup(small);
    char *big = malloc(needed);
    if (big == NULL) return strdup(small);
    weida_last_error(big, needed, &needed);
    return big;
}

napi_value make_error(napi_env env, int code, const char *cause) {
    addon_t *addon = addon_of(env);
    napi_value fn, argv[2], err = NULL, global;
    if (cause == NULL || cause[0] == '\0') cause = weida_strerror(code);
    napi_create_int32(env, code, &argv[0]);
    napi_create_string_utf8(env, cause, NAPI_AUTO_LENGTH, &argv[1]);
    if (addon != NULL && addon->make_error != NULL &&
        napi_get_reference_value(env, addon->make_error, &fn) == napi_ok && fn != NULL) {
        napi_get_global(env, &global);
        if (napi_call_function(env, global, fn, 2, argv, &err) == napi_ok) return err;
    }
    /* Before setup() (or if makeError threw): a plain Error with the sentence. */
    napi_value code_text;
    napi_create_string_utf8(env, weida_strerror(code), NAPI_AUTO_LENGTH, &code_text);
    napi_create_error(env, code_text, argv[1], &err);
    return err;
}

napi_value throw_code(napi_env env, int code) {
    char *cause = last_error_text();
    napi_throw(env, make_error(env, code, cause));
    free(cause);
    return NULL;
}

napi_value js_undefined(napi_env env) {
    napi_value v;
    napi_get_undefined(env, &v);
    return v;
}

napi_value js_handle(napi_env env, uint64_t h) {
    napi_value v;
    napi_create_bigint_uint64(env, h, &v);
    return v;
}

napi_value js_number(napi_env env, double n) {
    napi_value v;
    napi_create_double(env, n, &v);
    return v;
}

napi_value js_string(napi_env env, const char *s) {
    napi_value v;
    napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
    return v;
}

/* Protocol, as the library says it for what the wire cannot carry. */
static bool protocol_error(napi_env env, const char *what, const char *detail) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s %s: it must be an integer in 0 .. 2**64-1", what, detail);
    napi_throw(env, make_error(env, WEIDA_EPROTOCOL, msg));
    return false;
}

bool arg_word(napi_env env, napi_value v, const char *what, uint64_t *out) {
    napi_valuetype t;
    napi_typeof(env, v, &t);
    if (t == napi_bigint) {
        int sign = 0;
        size_t words = 1;
        uint64_t low = 0;
        napi_get_value_bigint_words(env, v, &sign, &words, &low);
        if (sign || words > 1) return protocol_error(env, what, "is out of range");
        *out = low;
        return true;
    }
    if (t != napi_number) return type_error(env, what, "an integer (number or bigint)", v);
    double d;
    napi_get_value_double(env, v, &d);
    if (d != floor(d) || !isfinite(d)) return type_error(env, what, "an integer (number or bigint)", v);
    if (d < 0 || d > MAX_SAFE_INTEGER) return protocol_error(env, what, "is out of range (or not exact as a number: pass a bigint)");
    *out = (uint64_t)d;
    return true;
}

bool arg_order(napi_env env, napi_value levels, napi_value mode, uint64_t **out, size_t *n, int *mode_out) {
    bool is_array = false;
    napi_is_array(env, levels, &is_array);
    if (!is_array) return type_error(env, "report", "an array of levels", levels);
    uint32_t count = 0;
    napi_get_array_length(env, levels, &count);
    uint64_t *words = calloc(count ? count : 1, sizeof *words);
    if (words == NULL) {
        napi_throw_error(env, NULL, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        napi_value level;
        napi_get_element(env, levels, i, &level);
        if (!arg_word(env, level, "report level", &words[i])) {
            free(words);
            return false;
        }
    }
    napi_valuetype t;
    napi_typeof(env, mode, &t);
    double m = 0;
    if (t != napi_number || (napi_get_value_double(env, mode, &m), m != floor(m))) {
        free(words);
        return type_error(env, "mode", "an integer (PROGRESS or FINAL_ONLY)", mode);
    }
    if (m < INT32_MIN || m > INT32_MAX) {
        free(words);
        char msg[128];
        snprintf(msg, sizeof msg, "report mode %g is neither PROGRESS (0) nor FINAL_ONLY (1)", m);
        napi_throw(env, make_error(env, WEIDA_EPROTOCOL, msg));
        return false;
    }
    *out = words;
    *n = count;
    *mode_out = (int)m;
    return true;
}
