/*
 * example.h — the little every example shares: a CHECK that prints the
 * library's own sentence and exits non-zero, an EXPECT for results, and
 * helpers to read text and payloads, to set up a Push/Pull pair and to close
 * every handle at the end. Examples use only weida.h and libweida.
 */
#ifndef WEIDA_EXAMPLE_H
#define WEIDA_EXAMPLE_H

/* nanosleep and pthreads under -std=c11; include this header first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "weida.h"

/* Fails the example with the code's name and the thread's last error. */
static inline void example_fail(const char *file, int line, const char *call, int code) {
    char text[1024];
    size_t needed = 0;
    weida_last_error(text, sizeof text, &needed);
    fprintf(stderr, "%s:%d: %s -> %s\n    %s\n", file, line, call, weida_strerror(code), text);
    exit(1);
}

/* CHECK(call): the call must succeed. */
#define CHECK(call)                                          \
    do {                                                     \
        int check_rc_ = (call);                              \
        if (check_rc_ != WEIDA_OK)                           \
            example_fail(__FILE__, __LINE__, #call, check_rc_); \
    } while (0)

/* EXPECT_CODE(call, code): the call must fail with exactly code. */
#define EXPECT_CODE(call, code)                                                   \
    do {                                                                          \
        int expect_rc_ = (call);                                                  \
        if (expect_rc_ != (code)) {                                               \
            fprintf(stderr, "%s:%d: %s -> %s, expected %s\n", __FILE__, __LINE__, \
                    #call, weida_strerror(expect_rc_), weida_strerror(code));     \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

/* EXPECT(cond, ...): a claim about a result. */
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

/* Text buffers: weida's URLs and fingerprints fit easily. present is 0 for
 * an absent meta field. */
typedef struct {
    char s[512];
    int present;
} text_t;

/* The dialling URL of path on binding b. */
static inline text_t example_url(weida_binding_t b, const char *path) {
    text_t t = {.present = 1};
    CHECK(weida_binding_url(b, path, t.s, sizeof t.s, NULL));
    return t;
}

/* True when msg m's payload equals the NUL-terminated want. */
static inline int example_payload_is(weida_msg_t m, const char *want) {
    const void *data = NULL;
    size_t len = 0;
    CHECK(weida_msg_data(m, &data, &len));
    return len == strlen(want) && memcmp(data, want, len) == 0;
}

/* A text meta field of a msg, request or istream ("" when absent). */
static inline text_t example_meta(weida_handle_t h, int field) {
    text_t t;
    CHECK(weida_meta_text(h, field, t.s, sizeof t.s, NULL, &t.present));
    return t;
}

/* Every handle must be closed by the end of an example. */
static inline void example_no_leaks(void) {
    uint64_t live = 0;
    CHECK(weida_handles_live(&live));
    EXPECT(live == 0, "%llu handles still open", (unsigned long long)live);
}

/* Closes n handles in order, each of which must close cleanly, then checks
 * that none is left open: how an example ends. Call it as
 * EXAMPLE_CLOSE_ALL(h, ...). */
static inline void example_close_all(const char *file, int line, const weida_handle_t *handles, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int rc = weida_close(handles[i]);
        if (rc != WEIDA_OK) {
            char call[80];
            snprintf(call, sizeof call, "weida_close(handle %zu of %zu)", i + 1, n);
            example_fail(file, line, call, rc);
        }
    }
    example_no_leaks();
}

#define EXAMPLE_CLOSE_ALL(...)                                                   \
    example_close_all(__FILE__, __LINE__, (const weida_handle_t[]){__VA_ARGS__}, \
                      sizeof((const weida_handle_t[]){__VA_ARGS__}) / sizeof(weida_handle_t))

/* A pusher dialled to a puller bound at a path of a loopback QUIC binding,
 * and all they stand on: one runtime, an identity for the binding, and the
 * trust the pusher dials with (by address: it trusts what the URL names). */
typedef struct {
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_puller_t puller;
    weida_trust_t by_address;
    weida_pusher_t pusher;
} example_pushpull_t;

static inline example_pushpull_t example_pushpull_open(const char *path) {
    example_pushpull_t p;
    CHECK(weida_runtime_new(NULL, &p.rt));
    CHECK(weida_identity_generate(&p.id));
    CHECK(weida_bind_quic(p.rt, "127.0.0.1:0", p.id, NULL, &p.binding));
    CHECK(weida_binding_puller(p.binding, path, &p.puller));
    CHECK(weida_trust_by_address(&p.by_address));
    CHECK(weida_runtime_pusher(p.rt, p.by_address, NULL, &p.pusher));
    text_t url = example_url(p.binding, path);
    CHECK(weida_pusher_connect(p.pusher, url.s));
    return p;
}

/* Closes all of p, the pusher first, and checks nothing is left open. */
static inline void example_pushpull_close(example_pushpull_t p) {
    EXAMPLE_CLOSE_ALL(p.pusher, p.puller, p.by_address, p.binding, p.id, p.rt);
}

/* Polls cond every 5 ms for up to 10 s. Only for facts the API announces
 * no event for (e.g. a publisher applying a new filter). */
#define EXAMPLE_WAIT_UNTIL(cond)                                              \
    do {                                                                      \
        struct timespec wait_step_ = {0, 5 * 1000 * 1000};                    \
        int wait_tries_ = 0;                                                  \
        while (!(cond)) {                                                     \
            EXPECT(++wait_tries_ < 2000, "%s within 10 s", #cond);            \
            nanosleep(&wait_step_, NULL);                                     \
        }                                                                     \
    } while (0)

#endif
