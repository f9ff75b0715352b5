/*
 * lifecycle.c — the C ABI's lifetimes and completions: a callback that
 * calls back into the library (async and close work, blocking is refused
 * with WEIDA_ERUNTIME, nothing deadlocks); cancellation by op handle,
 * exactly one callback each; weida_close with the drop semantics (blocked
 * calls woken with WEIDA_ECANCELED, an unanswered request is NO_REPLY, an
 * unfinished stream is reset); a cursors wait woken by cancel and close,
 * and the wait's deadline leaving the report going; children keeping
 * their runtime alive, and shutdown waking everything and refusing new
 * endpoints.
 */
#include "testkit.h"

/* A callback that calls back into the library. */
typedef struct {
    done_t done;
    weida_puller_t puller;
    int blocking_code;  /* a blocking call from the callback thread */
    int async_code;     /* an async call started from the callback */
    int close_code;     /* closing the delivered message */
    done_t nested;      /* the nested async call's completion */
} reentry_t;

static void on_reentry(void *user, int code, uint64_t a, uint64_t b) {
    reentry_t *r = user;
    if (code == WEIDA_OK) {
        weida_msg_t m;
        r->blocking_code = weida_puller_recv(r->puller, 64, &m);
        r->async_code = weida_puller_recv_async(r->puller, 64, on_done, &r->nested, NULL);
        r->close_code = weida_close(a);
    }
    on_done(&r->done, code, a, b);
}

static void callbacks_calling_back(world_t *w) {
    reentry_t r;
    memset(&r, 0, sizeof r);
    done_init(&r.done);
    done_init(&r.nested);
    CHECK(weida_binding_puller(w->binding, "/reentry", &r.puller));
    CHECK(weida_puller_recv_async(r.puller, 64, on_reentry, &r, NULL));
    weida_pusher_t push = pusher_to(w, "/reentry");
    CHECK(weida_pusher_send(push, "one", 3));
    CHECK(done_wait(&r.done));
    EXPECT(r.blocking_code == WEIDA_ERUNTIME, "a blocking call in a callback is refused, got %s",
           weida_strerror(r.blocking_code));
    EXPECT(r.async_code == WEIDA_OK && r.close_code == WEIDA_OK, "async and close work in a callback");
    CHECK(weida_pusher_send(push, "two", 3));
    CHECK(done_wait(&r.nested));
    CHECK(weida_close(r.nested.a));
    EXPECT(r.done.fired == 1 && r.nested.fired == 1, "each callback exactly once");
    CHECK(weida_close(push));
    CHECK(weida_close(r.puller));
}

static void cancellation(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/cancel", &p));
    done_t d;
    done_init(&d);
    weida_op_t op = 0;
    CHECK(weida_puller_recv_async(p, 64, on_done, &d, &op));
    EXPECT(op != 0, "an op handle");
    CHECK(weida_op_cancel(op));
    EXPECT_CODE(done_wait(&d), WEIDA_ECANCELED);
    EXPECT_CODE(weida_op_cancel(op), WEIDA_EBADHANDLE); /* spent: harmless */
    EXPECT(d.fired == 1, "exactly once, fired %d", d.fired);

    /* Canceling a read resets the stream: the sender learns. */
    weida_pusher_t push = pusher_to(w, "/cancel");
    weida_ostream_t out;
    CHECK(weida_pusher_open(push, &out));
    CHECK(weida_ostream_write(out, "partial", 7));
    weida_istream_t in;
    CHECK(weida_puller_recv_stream(p, &in));
    char buf[64];
    size_t n;
    CHECK(weida_istream_read(in, buf, sizeof buf, &n));
    EXPECT(n == 7, "the first piece");
    done_init(&d);
    CHECK(weida_istream_read_async(in, buf, sizeof buf, on_done, &d, &op));
    CHECK(weida_op_cancel(op));
    EXPECT_CODE(done_wait(&d), WEIDA_ECANCELED);
    CHECK(weida_close(in));
    CHECK(weida_close(out));
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

/* Closing an endpoint wakes a call blocked on it with WEIDA_ECANCELED. */
typedef struct {
    weida_puller_t puller;
    int code;
} blocked_t;

static void *blocked_recv(void *arg) {
    blocked_t *b = arg;
    weida_msg_t m;
    b->code = weida_puller_recv(b->puller, 64, &m);
    return NULL;
}

static void close_semantics(world_t *w) {
    blocked_t b = {0};
    CHECK(weida_binding_puller(w->binding, "/blocked", &b.puller));
    /* The blocked thread holds the handle value; closing it is the wake-up
     * (whether the close lands before or during the recv, the answer is a
     * code, never a hang). */
    pthread_t th;
    pthread_create(&th, NULL, blocked_recv, &b);
    weida_puller_t p = b.puller;
    CHECK(weida_close(p));
    pthread_join(th, NULL);
    EXPECT(b.code == WEIDA_ECANCELED || b.code == WEIDA_EBADHANDLE, "woken, got %s", weida_strerror(b.code));

    /* An unanswered request, closed, is NO_REPLY to the asker. */
    weida_replier_t rep;
    CHECK(weida_binding_replier(w->binding, "/silent", &rep));
    weida_requester_t req;
    CHECK(weida_runtime_requester(w->rt, w->trust, NULL, &req));
    text_t url = example_url(w->binding, "/silent");
    CHECK(weida_requester_connect(req, url.s));
    done_t d;
    done_init(&d);
    CHECK(weida_requester_request_async(req, "?", 1, 64, on_done, &d, NULL));
    weida_request_t q;
    CHECK(weida_replier_accept(rep, 64, &q));
    CHECK(weida_close(q));
    EXPECT_CODE(done_wait(&d), WEIDA_ENOREPLY);
    /* A second answer is NO_REPLY; so is writing after finish. */
    done_init(&d);
    CHECK(weida_requester_request_async(req, "?", 1, 64, on_done, &d, NULL));
    CHECK(weida_replier_accept(rep, 64, &q));
    CHECK(weida_request_reply(q, "!", 1));
    EXPECT_CODE(weida_request_reply(q, "!", 1), WEIDA_ENOREPLY);
    CHECK(done_wait(&d));
    CHECK(weida_close(d.a));
    CHECK(weida_close(q));

    /* An unfinished stream, closed, is reset: the reader sees Canceled. */
    weida_puller_t pl;
    CHECK(weida_binding_puller(w->binding, "/reset", &pl));
    weida_pusher_t push = pusher_to(w, "/reset");
    weida_ostream_t out;
    CHECK(weida_pusher_open(push, &out));
    CHECK(weida_ostream_write(out, "half", 4));
    weida_istream_t in;
    CHECK(weida_puller_recv_stream(pl, &in));
    CHECK(weida_close(out));
    weida_msg_t m;
    EXPECT_CODE(weida_istream_collect(in, 64, &m), WEIDA_ECANCELED);
    EXPECT_CODE(weida_ostream_write(out, "more", 4), WEIDA_EBADHANDLE);
    /* a finished one refuses more writes with NO_REPLY */
    CHECK(weida_pusher_open(push, &out));
    CHECK(weida_ostream_finish(out));
    EXPECT_CODE(weida_ostream_write(out, "late", 4), WEIDA_ENOREPLY);
    CHECK(weida_close(out));
    CHECK(weida_close(in));
    CHECK(weida_close(push));
    CHECK(weida_close(pl));
    CHECK(weida_close(req));
    CHECK(weida_close(rep));
}

/* A wait on cursors ends by its op, by its deadline or by closing the
 * cursors; only the first two leave the cursors usable. */
static void cursor_waits(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/cursors", &p));
    weida_pusher_t push = pusher_to(w, "/cursors");
    const uint64_t processed = WEIDA_PROCESSED;
    weida_cursors_t c;
    CHECK(weida_pusher_send_reporting(push, "job", 3, &processed, 1, WEIDA_PROGRESS, &c));

    done_t d;
    done_init(&d);
    weida_op_t op;
    CHECK(weida_cursors_changed_async(c, -1.0, on_done, &d, &op)); /* no deadline */
    CHECK(weida_op_cancel(op));
    EXPECT_CODE(done_wait(&d), WEIDA_ECANCELED);
    EXPECT_CODE(weida_cursors_changed(c, 0.01), WEIDA_ETIMEDOUT);

    /* The report goes on after both: the puller's report still arrives. */
    weida_msg_t m;
    weida_reporter_t r;
    CHECK(weida_puller_recv_reporting(p, 64, &m, &r));
    CHECK(weida_reporter_report(r, WEIDA_PROCESSED, 3));
    CHECK(weida_reporter_finish(r));
    CHECK(weida_cursors_changed(c, 10.0));
    CHECK(weida_close(r));
    CHECK(weida_close(m));
    CHECK(weida_close(c));

    /* Closing the cursors wakes a blocked wait with WEIDA_ECANCELED. */
    CHECK(weida_pusher_send_reporting(push, "job", 3, &processed, 1, WEIDA_PROGRESS, &c));
    done_init(&d);
    CHECK(weida_cursors_changed_async(c, -1.0, on_done, &d, NULL));
    CHECK(weida_close(c));
    EXPECT_CODE(done_wait(&d), WEIDA_ECANCELED);
    EXPECT(d.fired == 1, "exactly once, fired %d", d.fired);
    CHECK(weida_puller_recv_reporting(p, 64, &m, &r));
    CHECK(weida_close(r)); /* finishes a report nobody listens to: harmless */
    CHECK(weida_close(m));
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

/* Children keep their runtime alive: close order does not matter. */
static void lifetime(void) {
    world_t w = world_new();
    weida_puller_t p;
    CHECK(weida_binding_puller(w.binding, "/alive", &p));
    weida_pusher_t push = pusher_to(&w, "/alive");
    CHECK(weida_close(w.rt)); /* the runtime's own handle first */
    CHECK(weida_pusher_send(push, "still here", 10));
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    EXPECT(example_payload_is(m, "still here"), "the runtime outlived its handle");
    CHECK(weida_close(m));
    CHECK(weida_close(p));
    CHECK(weida_close(push));
    CHECK(weida_close(w.binding)); /* the last child: the runtime shuts down */
    CHECK(weida_close(w.trust));
    CHECK(weida_close(w.id));

    /* Shutdown wakes blocked calls; later calls fail with a code. */
    w = world_new();
    blocked_t b = {0};
    CHECK(weida_binding_puller(w.binding, "/down", &b.puller));
    pthread_t th;
    pthread_create(&th, NULL, blocked_recv, &b);
    CHECK(weida_runtime_shutdown(w.rt));
    pthread_join(th, NULL);
    EXPECT(b.code == WEIDA_ECANCELED, "shutdown wakes, got %s", weida_strerror(b.code));
    /* A shut-down runtime makes nothing more, directly or through a binding. */
    weida_requester_t r = 1;
    EXPECT_CODE(weida_runtime_requester(w.rt, w.trust, NULL, &r), WEIDA_ERUNTIME);
    EXPECT(r == 0, "no handle from a refused factory");
    weida_puller_t late;
    EXPECT_CODE(weida_binding_puller(w.binding, "/late", &late), WEIDA_ERUNTIME);
    CHECK(weida_close(b.puller));
    world_close(&w);
}

int main(void) {
    world_t w = world_new();
    callbacks_calling_back(&w);
    cancellation(&w);
    close_semantics(&w);
    cursor_waits(&w);
    world_close(&w);
    lifetime();
    example_no_leaks();
    puts("lifecycle: ok");
    return 0;
}
