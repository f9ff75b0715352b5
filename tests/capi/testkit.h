/*
 * testkit.h — what the C ABI test programs share: a one-shot completion to
 * wait on, and a served runtime ("world") to run against. On top of the
 * examples' example.h.
 */
#ifndef WEIDA_TESTKIT_H
#define WEIDA_TESTKIT_H

#include "example.h"

/* --- a one-shot completion a test can wait for ------------------------ */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fired; /* how many times the callback ran: must end at exactly 1 */
    int code;
    uint64_t a, b;
    char error[256];
} done_t;

static inline void done_init(done_t *d) {
    memset(d, 0, sizeof *d);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
}

static inline void on_done(void *user, int code, uint64_t a, uint64_t b) {
    done_t *d = user;
    pthread_mutex_lock(&d->mu);
    d->fired++;
    d->code = code;
    d->a = a;
    d->b = b;
    if (code != WEIDA_OK) {
        weida_last_error(d->error, sizeof d->error, NULL);
    }
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

static inline int done_wait(done_t *d) {
    pthread_mutex_lock(&d->mu);
    while (d->fired == 0) {
        pthread_cond_wait(&d->cv, &d->mu);
    }
    int code = d->code;
    pthread_mutex_unlock(&d->mu);
    return code;
}

/* --- a served runtime every section uses ------------------------------ */

typedef struct {
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t trust;
} world_t;

static inline world_t world_new(void) {
    world_t w;
    CHECK(weida_runtime_new(NULL, &w.rt));
    CHECK(weida_identity_generate(&w.id));
    CHECK(weida_bind_quic(w.rt, "127.0.0.1:0", w.id, NULL, &w.binding));
    CHECK(weida_trust_by_address(&w.trust));
    return w;
}

static inline void world_close(world_t *w) {
    CHECK(weida_close(w->trust));
    CHECK(weida_close(w->binding));
    CHECK(weida_close(w->id));
    CHECK(weida_close(w->rt));
}

static inline weida_pusher_t pusher_to(world_t *w, const char *path) {
    weida_pusher_t p;
    CHECK(weida_runtime_pusher(w->rt, w->trust, NULL, &p));
    text_t url = example_url(w->binding, path);
    CHECK(weida_pusher_connect(p, url.s));
    return p;
}

#endif
