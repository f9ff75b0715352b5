/*
 * logging.c — the log callback (weida_set_log_callback).
 *
 * Claims: with a callback at INFO, a push over QUIC logs the connection
 * opened on both sides (side=dialled naming the server's key, side=accepted
 * an anonymous peer) and the accepted side's close with the reason, and
 * nothing per message; a dialler requiring reassembly of a core listener
 * logs a WARN naming dimension=ordering; after the callback is removed it
 * is never called again; a callback may remove itself from inside.
 */
#include <pthread.h>

#include "testkit.h"

#define MAX_LINES 64

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;              /* lines kept */
    int total;          /* every call */
    int removed;        /* it removed itself */
    int remove_itself;  /* remove the callback from inside at the first line */
    int levels[MAX_LINES];
    char lines[MAX_LINES][512]; /* "message | attrs" */
} log_t;

static void log_init(log_t *l) {
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
}

static void on_log(void *user, int level, const char *message, const char *attrs) {
    log_t *l = user;
    pthread_mutex_lock(&l->mu);
    l->total++;
    if (l->n < MAX_LINES) {
        l->levels[l->n] = level;
        snprintf(l->lines[l->n], sizeof l->lines[0], "%s | %s", message, attrs);
        l->n++;
    }
    int remove = l->remove_itself && !l->removed;
    if (remove) l->removed = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    if (remove) CHECK(weida_set_log_callback(WEIDA_LOG_DEBUG, NULL, NULL));
}

static int log_total(log_t *l) {
    pthread_mutex_lock(&l->mu);
    int n = l->total;
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* Waits for a line holding every non-NULL part; returns its index. */
static int log_wait(log_t *l, const char *a, const char *b, const char *c) {
    pthread_mutex_lock(&l->mu);
    for (int seen = 0;; ) {
        for (; seen < l->n; seen++) {
            const char *s = l->lines[seen];
            if (strstr(s, a) && (!b || strstr(s, b)) && (!c || strstr(s, c))) {
                pthread_mutex_unlock(&l->mu);
                return seen;
            }
        }
        EXPECT(l->n < MAX_LINES, "a line with %s within %d lines", a, MAX_LINES);
        pthread_cond_wait(&l->cv, &l->mu);
    }
}

/* One push over a fresh connection to w's /logs, then the pusher closed. */
static void push_once(world_t *w, weida_puller_t puller) {
    weida_pusher_t pusher = pusher_to(w, "/logs");
    CHECK(weida_pusher_send(pusher, "hello", 5));
    weida_msg_t msg;
    CHECK(weida_puller_recv(puller, 64, &msg));
    CHECK(weida_close(msg));
    CHECK(weida_close(pusher));
}

static void opened_and_closed(void) {
    log_t l;
    log_init(&l);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, on_log, &l));
    world_t w = world_new();
    weida_puller_t puller;
    CHECK(weida_binding_puller(w.binding, "/logs", &puller));
    weida_pusher_t pusher = pusher_to(&w, "/logs");
    for (int i = 0; i < 20; i++) {
        CHECK(weida_pusher_send(pusher, "m", 1));
        weida_msg_t msg;
        CHECK(weida_puller_recv(puller, 64, &msg));
        CHECK(weida_close(msg));
    }
    char fingerprint[160];
    CHECK(weida_binding_fingerprint(w.binding, fingerprint, sizeof fingerprint, NULL));
    int i = log_wait(&l, "weida: connection opened", "side=dialled", fingerprint);
    EXPECT(l.levels[i] == WEIDA_LOG_INFO, "INFO, got %d", l.levels[i]);
    EXPECT(strstr(l.lines[i], "remote=127.0.0.1:") != NULL, "the remote address: %s", l.lines[i]);
    log_wait(&l, "weida: connection opened", "side=accepted", "peer=anonymous");
    CHECK(weida_close(pusher));
    i = log_wait(&l, "weida: connection closed", "side=accepted", "reason=");
    EXPECT(strstr(l.lines[i], "the peer closed") != NULL, "the peer's close: %s", l.lines[i]);
    pthread_mutex_lock(&l.mu);
    EXPECT(l.total <= 4, "20 pushes logged no line of their own at INFO, got %d lines", l.total);
    pthread_mutex_unlock(&l.mu);

    /* Removed: never called again, though connections keep opening. */
    CHECK(weida_set_log_callback(WEIDA_LOG_DEBUG, NULL, NULL));
    int calls = log_total(&l);
    push_once(&w, puller);
    log_t next;
    log_init(&next);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, on_log, &next));
    push_once(&w, puller);
    log_wait(&next, "weida: connection opened", "side=dialled", NULL);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, NULL, NULL));
    EXPECT(log_total(&l) == calls, "no call after removal: %d then %d", calls, log_total(&l));
    CHECK(weida_close(puller));
    world_close(&w);
}

static void negotiation_failure(void) {
    log_t l;
    log_init(&l);
    CHECK(weida_set_log_callback(WEIDA_LOG_WARN, on_log, &l));
    world_t w = world_new();
    weida_puller_t puller;
    CHECK(weida_binding_puller(w.binding, "/logs", &puller));
    weida_guarantees_t g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.ordering = WEIDA_ORDERING_REASSEMBLE;
    weida_runtime_opts_t o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.required = &g;
    weida_runtime_t client;
    CHECK(weida_runtime_new(&o, &client));
    weida_pusher_t pusher;
    CHECK(weida_runtime_pusher(client, w.trust, NULL, &pusher));
    text_t url = example_url(w.binding, "/logs");
    EXPECT_CODE(weida_pusher_connect(pusher, url.s), WEIDA_ENEGOTIATION);
    int i = log_wait(&l, "weida: negotiation failed", "dimension=ordering", "side=dialled");
    EXPECT(l.levels[i] == WEIDA_LOG_WARN, "WARN, got %d", l.levels[i]);
    log_wait(&l, "weida: negotiation failed", "dimension=ordering", "side=accepted");
    pthread_mutex_lock(&l.mu);
    for (int k = 0; k < l.n; k++)
        EXPECT(l.levels[k] >= WEIDA_LOG_WARN, "nothing below WARN: %s", l.lines[k]);
    pthread_mutex_unlock(&l.mu);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, NULL, NULL));
    CHECK(weida_close(pusher));
    CHECK(weida_close(client));
    CHECK(weida_close(puller));
    world_close(&w);
}

static void removed_from_inside(void) {
    log_t l;
    log_init(&l);
    l.remove_itself = 1;
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, on_log, &l));
    world_t w = world_new();
    weida_puller_t puller;
    CHECK(weida_binding_puller(w.binding, "/logs", &puller));
    push_once(&w, puller);
    log_wait(&l, "weida: connection", NULL, NULL);
    /* It removed itself. Setting a fresh callback from outside waits out
     * any call of the old one already under way on another thread; after
     * that the old one is never called again. */
    log_t next;
    log_init(&next);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, on_log, &next));
    int calls = log_total(&l);
    push_once(&w, puller);
    log_wait(&next, "weida: connection opened", "side=dialled", NULL);
    CHECK(weida_set_log_callback(WEIDA_LOG_INFO, NULL, NULL));
    EXPECT(log_total(&l) == calls, "no call after it removed itself: %d then %d", calls, log_total(&l));
    CHECK(weida_close(puller));
    world_close(&w);
}

int main(void) {
    opened_and_closed();
    negotiation_failure();
    removed_from_inside();
    uint64_t live = 1;
    CHECK(weida_handles_live(&live));
    EXPECT(live == 0, "no handle left open, got %llu", (unsigned long long)live);
    printf("logging: ok\n");
    return 0;
}
