/*
 * bench.c — per-call cost through the C ABI, to compare with the same
 * operations called from Go (bench_test.go in this directory):
 *
 *   abi_call       weida_pusher_peer_count: the crossing alone (cgo call,
 *                  handle lookup, out-parameter), no I/O
 *   send_blocking  weida_pusher_send of 64 bytes, a puller draining
 *   send_callback  weida_pusher_send_async of 64 bytes, waiting for each
 *                  completion on a condition variable (the loop an event
 *                  loop bridge runs: start, callback, wake the waiter)
 *   send_callback_x64
 *                  the same with up to 64 sends in flight, as an event loop
 *                  with many pending operations runs it (no thread wake-up
 *                  per operation on the waiting side)
 *   request_blocking / request_callback
 *                  one 64-byte request and its echo, round trip
 *
 *   bench [SCALE]   SCALE multiplies the iteration counts (default 1)
 *
 * Each line gives wall time and process CPU time (every thread, the served
 * side included) per operation. On a loaded machine the CPU figure is the
 * steadier one, and the boundary's cost is CPU work.
 */
#include "example.h"

static double clock_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* A measurement in progress: wall and CPU clocks at its start. */
typedef struct {
    double wall, cpu;
} mark_t;

static mark_t mark(void) { return (mark_t){clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_PROCESS_CPUTIME_ID)}; }

static weida_puller_t puller;
static weida_replier_t replier;

static void *drain(void *arg) {
    (void)arg;
    weida_msg_t m;
    int rc;
    while ((rc = weida_puller_recv(puller, 1024, &m)) == WEIDA_OK) {
        weida_close(m);
    }
    return NULL;
}

static void *echo(void *arg) {
    (void)arg;
    weida_request_t q;
    while (weida_replier_accept(replier, 1024, &q) == WEIDA_OK) {
        const void *data;
        size_t len;
        CHECK(weida_request_payload(q, &data, &len));
        weida_request_reply(q, data, len);
        weida_close(q);
    }
    return NULL;
}

/* A completion the benchmark thread waits for. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int code;
    uint64_t a;
} waiter_t;

static void on_done(void *user, int code, uint64_t a, uint64_t b) {
    (void)b;
    waiter_t *w = user;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    w->code = code;
    w->a = a;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static int wait_done(waiter_t *w) {
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        pthread_cond_wait(&w->cv, &w->mu);
    }
    w->done = 0;
    pthread_mutex_unlock(&w->mu);
    return w->code;
}

/* Up to `limit` operations in flight; the callback frees a place. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int in_flight, limit, failed;
} window_t;

static void on_window(void *user, int code, uint64_t a, uint64_t b) {
    (void)a, (void)b;
    window_t *w = user;
    pthread_mutex_lock(&w->mu);
    w->in_flight--;
    w->failed |= code != WEIDA_OK;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void window_wait_below(window_t *w, int n) {
    pthread_mutex_lock(&w->mu);
    while (w->in_flight >= n) {
        pthread_cond_wait(&w->cv, &w->mu);
    }
    w->in_flight++;
    pthread_mutex_unlock(&w->mu);
}

static void report(const char *name, int n, mark_t start) {
    mark_t end = mark();
    printf("%-18s %8d ops %10.0f ns/op %10.0f cpu-ns/op\n", name, n, (end.wall - start.wall) / n,
           (end.cpu - start.cpu) / n);
}

int main(int argc, char **argv) {
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    EXPECT(scale > 0, "usage: bench [SCALE]");
    weida_runtime_t server_rt, client_rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t trust;
    weida_pusher_t pusher;
    weida_requester_t requester;
    CHECK(weida_runtime_new(NULL, &server_rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(server_rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_puller(binding, "/sink", &puller));
    CHECK(weida_binding_replier(binding, "/echo", &replier));
    CHECK(weida_runtime_new(NULL, &client_rt));
    CHECK(weida_trust_by_address(&trust));
    CHECK(weida_runtime_pusher(client_rt, trust, NULL, &pusher));
    CHECK(weida_runtime_requester(client_rt, trust, NULL, &requester));
    text_t sink = example_url(binding, "/sink"), echo_url = example_url(binding, "/echo");
    CHECK(weida_pusher_connect(pusher, sink.s));
    CHECK(weida_requester_connect(requester, echo_url.s));
    pthread_t drainer, replier_thread;
    pthread_create(&drainer, NULL, drain, NULL);
    pthread_create(&replier_thread, NULL, echo, NULL);
    char payload[64];
    memset(payload, 'x', sizeof payload);

    int n = 1000000 * scale;
    size_t peers;
    mark_t t0 = mark();
    for (int i = 0; i < n; i++) {
        weida_pusher_peer_count(pusher, &peers);
    }
    report("abi_call", n, t0);

    n = 20000 * scale;
    for (int i = 0; i < 1000; i++) { /* warm-up */
        CHECK(weida_pusher_send(pusher, payload, sizeof payload));
    }
    t0 = mark();
    for (int i = 0; i < n; i++) {
        CHECK(weida_pusher_send(pusher, payload, sizeof payload));
    }
    report("send_blocking", n, t0);

    waiter_t w = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    t0 = mark();
    for (int i = 0; i < n; i++) {
        CHECK(weida_pusher_send_async(pusher, payload, sizeof payload, on_done, &w, NULL));
        CHECK(wait_done(&w));
    }
    report("send_callback", n, t0);

    window_t win = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .limit = 64};
    t0 = mark();
    for (int i = 0; i < n; i++) {
        window_wait_below(&win, win.limit);
        CHECK(weida_pusher_send_async(pusher, payload, sizeof payload, on_window, &win, NULL));
    }
    window_wait_below(&win, 1); /* every one completed */
    report("send_callback_x64", n, t0);
    EXPECT(!win.failed, "every pipelined send succeeded");

    n = 5000 * scale;
    t0 = mark();
    for (int i = 0; i < n; i++) {
        weida_msg_t reply;
        CHECK(weida_requester_request(requester, payload, sizeof payload, 1024, &reply));
        CHECK(weida_close(reply));
    }
    report("request_blocking", n, t0);

    t0 = mark();
    for (int i = 0; i < n; i++) {
        CHECK(weida_requester_request_async(requester, payload, sizeof payload, 1024, on_done, &w, NULL));
        CHECK(wait_done(&w));
        CHECK(weida_close(w.a));
    }
    report("request_callback", n, t0);

    CHECK(weida_close(pusher));
    CHECK(weida_close(requester));
    CHECK(weida_close(puller));
    CHECK(weida_close(replier));
    pthread_join(drainer, NULL);
    pthread_join(replier_thread, NULL);
    CHECK(weida_close(trust));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(client_rt));
    CHECK(weida_close(server_rt));
    example_no_leaks();
    return 0;
}
