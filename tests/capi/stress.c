/*
 * stress.c — 8 threads making blocking calls and 8 making callback calls
 * through the C ABI at once, against repliers and a puller served through
 * the ABI too.
 *
 *   stress SECONDS
 *
 * Fails (exit 1) on a wrong reply, a callback that fires twice or never, a
 * handle left open, memory that keeps growing (RSS at the end more than
 * 64 MiB above RSS once warmed up, a quarter into the run), or no progress
 * for 10 s (a deadlock). The test command runs it 3 s; the documented heavy
 * run is 20 s.
 *
 * The callback threads also cancel every 8th operation right after starting
 * it, and every 4th callback starts a push from inside the callback: a
 * callback calling back into the library.
 */
#include "example.h"

#include <stdatomic.h>
#include <unistd.h>

#define BLOCKING_THREADS 8
#define CALLBACK_THREADS 8
#define REPLIER_THREADS 4
#define MAX_PAYLOAD 64

static atomic_int stop;
static atomic_ullong ops;         /* completed operations, all threads */
static atomic_ullong canceled;    /* callback operations that ended canceled */
static atomic_ullong nested;      /* pushes started from inside callbacks */
static atomic_ullong pulled;      /* messages the puller received */
static atomic_int nested_pending; /* nested pushes whose callback has not run */

static weida_requester_t requester;
static weida_pusher_t pusher;
static weida_replier_t replier;
static weida_puller_t puller;

static void *replier_loop(void *arg) {
    (void)arg;
    for (;;) {
        weida_request_t q;
        int rc = weida_replier_accept(replier, MAX_PAYLOAD, &q);
        if (rc == WEIDA_ECANCELED || rc == WEIDA_EBADHANDLE) {
            return NULL; /* the replier was closed during the call, or before it */
        }
        CHECK(rc);
        const void *data;
        size_t len;
        CHECK(weida_request_payload(q, &data, &len));
        rc = weida_request_reply(q, data, len);
        EXPECT(rc == WEIDA_OK || rc == WEIDA_ECANCELED, "reply: %s", weida_strerror(rc));
        CHECK(weida_close(q));
    }
}

static void *puller_loop(void *arg) {
    (void)arg;
    for (;;) {
        weida_msg_t m;
        int rc = weida_puller_recv(puller, MAX_PAYLOAD, &m);
        if (rc == WEIDA_ECANCELED || rc == WEIDA_EBADHANDLE) {
            return NULL;
        }
        CHECK(rc);
        CHECK(weida_close(m));
        atomic_fetch_add(&pulled, 1);
    }
}

static void *blocking_loop(void *arg) {
    int id = (int)(intptr_t)arg;
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        char payload[MAX_PAYLOAD];
        int n = snprintf(payload, sizeof payload, "b%d-%u", id, i);
        if (i % 4 == 3) {
            CHECK(weida_pusher_send(pusher, payload, (size_t)n));
        } else {
            weida_msg_t reply;
            CHECK(weida_requester_request(requester, payload, (size_t)n, MAX_PAYLOAD, &reply));
            const void *data;
            size_t len;
            CHECK(weida_msg_data(reply, &data, &len));
            EXPECT(len == (size_t)n && memcmp(data, payload, len) == 0, "the echo of %s", payload);
            CHECK(weida_close(reply));
        }
        atomic_fetch_add(&ops, 1);
    }
    return NULL;
}

/* One callback operation in flight. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int fired;
    int code;
    int ok_payload;
    int chain; /* start a push from inside the callback */
    char payload[MAX_PAYLOAD];
    size_t len;
} token_t;

static void on_nested_push(void *user, int code, uint64_t a, uint64_t b) {
    (void)user, (void)a, (void)b;
    EXPECT(code == WEIDA_OK, "a nested push: %s", weida_strerror(code));
    atomic_fetch_sub(&nested_pending, 1);
}

static void on_reply(void *user, int code, uint64_t a, uint64_t b) {
    (void)b;
    token_t *t = user;
    if (atomic_fetch_add(&t->fired, 1) != 0) {
        fprintf(stderr, "stress: a callback fired twice\n");
        abort();
    }
    int ok = 0;
    if (code == WEIDA_OK) {
        const void *data;
        size_t len;
        ok = weida_msg_data(a, &data, &len) == WEIDA_OK && len == t->len && memcmp(data, t->payload, len) == 0;
        weida_close(a); /* closing from inside the callback */
        if (t->chain) {
            atomic_fetch_add(&nested_pending, 1);
            CHECK(weida_pusher_send_async(pusher, t->payload, t->len, on_nested_push, NULL, NULL));
            atomic_fetch_add(&nested, 1);
        }
    }
    pthread_mutex_lock(&t->mu);
    t->code = code;
    t->ok_payload = ok;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static void *callback_loop(void *arg) {
    int id = (int)(intptr_t)arg;
    token_t t;
    pthread_mutex_init(&t.mu, NULL);
    pthread_cond_init(&t.cv, NULL);
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        atomic_store(&t.fired, 0);
        t.code = -1;
        t.chain = i % 4 == 1;
        t.len = (size_t)snprintf(t.payload, sizeof t.payload, "c%d-%u", id, i);
        weida_op_t op;
        CHECK(weida_requester_request_async(requester, t.payload, t.len, MAX_PAYLOAD, on_reply, &t, &op));
        if (i % 8 == 7) {
            int rc = weida_op_cancel(op); /* may lose the race: then the op is spent */
            EXPECT(rc == WEIDA_OK || rc == WEIDA_EBADHANDLE, "cancel: %s", weida_strerror(rc));
        }
        pthread_mutex_lock(&t.mu);
        while (t.code == -1) {
            pthread_cond_wait(&t.cv, &t.mu);
        }
        pthread_mutex_unlock(&t.mu);
        if (t.code == WEIDA_ECANCELED) {
            EXPECT(i % 8 == 7, "only canceled operations end canceled (op %u)", i);
            atomic_fetch_add(&canceled, 1);
        } else {
            EXPECT(t.code == WEIDA_OK && t.ok_payload, "the echo of %s: %s", t.payload, weida_strerror(t.code));
        }
        atomic_fetch_add(&ops, 1);
    }
    return NULL;
}

static long rss_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL || fscanf(f, "%ld %ld", &pages, &resident) != 2) {
        resident = 0;
    }
    if (f != NULL) {
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 3;
    EXPECT(seconds > 0, "usage: stress SECONDS");

    weida_runtime_t server_rt, client_rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t trust;
    CHECK(weida_runtime_new(NULL, &server_rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(server_rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_replier(binding, "/echo", &replier));
    CHECK(weida_binding_puller(binding, "/sink", &puller));
    CHECK(weida_runtime_new(NULL, &client_rt));
    CHECK(weida_trust_by_address(&trust));
    CHECK(weida_runtime_requester(client_rt, trust, NULL, &requester));
    CHECK(weida_runtime_pusher(client_rt, trust, NULL, &pusher));
    text_t echo = example_url(binding, "/echo"), sink = example_url(binding, "/sink");
    CHECK(weida_requester_connect(requester, echo.s));
    CHECK(weida_pusher_connect(pusher, sink.s));

    pthread_t servers[REPLIER_THREADS + 1], clients[BLOCKING_THREADS + CALLBACK_THREADS];
    for (int i = 0; i < REPLIER_THREADS; i++) {
        pthread_create(&servers[i], NULL, replier_loop, NULL);
    }
    pthread_create(&servers[REPLIER_THREADS], NULL, puller_loop, NULL);
    for (int i = 0; i < BLOCKING_THREADS; i++) {
        pthread_create(&clients[i], NULL, blocking_loop, (void *)(intptr_t)i);
    }
    for (int i = 0; i < CALLBACK_THREADS; i++) {
        pthread_create(&clients[BLOCKING_THREADS + i], NULL, callback_loop, (void *)(intptr_t)i);
    }

    long warm_rss = 0, peak_rss = 0;
    unsigned long long last_ops = 0;
    int stalled = 0;
    for (int s = 1; s <= seconds; s++) {
        sleep(1); /* the sampling period of a soak test, not synchronisation */
        unsigned long long now = atomic_load(&ops);
        long rss = rss_kib();
        peak_rss = rss > peak_rss ? rss : peak_rss;
        if (s == (seconds + 3) / 4) {
            warm_rss = rss;
        }
        printf("stress: %2ds %8llu ops (+%llu) rss %ld KiB\n", s, now, now - last_ops, rss);
        fflush(stdout);
        stalled = now == last_ops ? stalled + 1 : 0;
        EXPECT(stalled < 10, "progress within 10 s (a deadlock?)");
        last_ops = now;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < BLOCKING_THREADS + CALLBACK_THREADS; i++) {
        pthread_join(clients[i], NULL);
    }
    long end_rss = rss_kib();
    struct timespec step = {0, 1000 * 1000};
    for (int i = 0; atomic_load(&nested_pending) > 0; i++) {
        EXPECT(i < 10000, "nested pushes complete");
        nanosleep(&step, NULL);
    }
    CHECK(weida_close(requester));
    CHECK(weida_close(pusher));
    CHECK(weida_close(replier)); /* wakes the server threads with WEIDA_ECANCELED */
    CHECK(weida_close(puller));
    for (int i = 0; i <= REPLIER_THREADS; i++) {
        pthread_join(servers[i], NULL);
    }
    CHECK(weida_close(trust));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(client_rt));
    CHECK(weida_close(server_rt));
    example_no_leaks();

    unsigned long long total = atomic_load(&ops);
    printf("stress: %llu ops in %d s (%.0f/s), %llu canceled, %llu nested pushes, %llu pulled; "
           "rss warm %ld KiB, end %ld KiB, peak %ld KiB\n",
           total, seconds, (double)total / seconds, (unsigned long long)atomic_load(&canceled),
           (unsigned long long)atomic_load(&nested), (unsigned long long)atomic_load(&pulled), warm_rss,
           end_rss, peak_rss);
    EXPECT(atomic_load(&canceled) > 0 || total < 64, "some cancels landed");
    EXPECT(end_rss - warm_rss < 64 * 1024, "flat memory: grew %ld KiB after warm-up", end_rss - warm_rss);
    puts("stress: ok");
    return 0;
}
