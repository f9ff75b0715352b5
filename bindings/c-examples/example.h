/*
 * example.h — the little every example shares: a CHECK that prints the
 * library's own sentence and exits non-zero, an EXPECT for results, and
 * helpers to read text and payloads. Examples use only weida.h and libweida.
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
