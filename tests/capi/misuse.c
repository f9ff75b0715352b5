/*
 * misuse.c — bad input through the C ABI returns a code, never a crash or a
 * deadlock: zero, closed, forged and wrong-role handles; NULL pointers; short
 * buffers; bad options and deadlines; callbacks that call back in. Also the
 * drop semantics of weida_close and the lifetime rule (children keep their
 * runtime alive).
 */
#include "example.h"

#include <math.h>
#include <stdatomic.h>

/* --- a one-shot completion a test can wait for ------------------------ */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fired; /* how many times the callback ran: must end at exactly 1 */
    int code;
    uint64_t a, b;
    char error[256];
} done_t;

static void done_init(done_t *d) {
    memset(d, 0, sizeof *d);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
}

static void on_done(void *user, int code, uint64_t a, uint64_t b) {
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

static int done_wait(done_t *d) {
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

static world_t world_new(void) {
    world_t w;
    CHECK(weida_runtime_new(NULL, &w.rt));
    CHECK(weida_identity_generate(&w.id));
    CHECK(weida_bind_quic(w.rt, "127.0.0.1:0", w.id, NULL, &w.binding));
    CHECK(weida_trust_by_address(&w.trust));
    return w;
}

static void world_close(world_t *w) {
    CHECK(weida_close(w->trust));
    CHECK(weida_close(w->binding));
    CHECK(weida_close(w->id));
    CHECK(weida_close(w->rt));
}

static weida_pusher_t pusher_to(world_t *w, const char *path) {
    weida_pusher_t p;
    CHECK(weida_runtime_pusher(w->rt, w->trust, NULL, &p));
    text_t url = example_url(w->binding, path);
    CHECK(weida_pusher_connect(p, url.s));
    return p;
}

/* --- sections ---------------------------------------------------------- */

static void library_facts(void) {
    EXPECT(weida_abi_version() == WEIDA_ABI_VERSION, "ABI %u", weida_abi_version());
    EXPECT(weida_wire_version() == 0, "wire version 0");
    EXPECT(strcmp(weida_alpn(), "weida/0") == 0, "ALPN %s", weida_alpn());
    EXPECT(strlen(weida_version()) > 0, "a version");
    EXPECT(strncmp(weida_strerror(WEIDA_EREJECTED), "WEIDA_EREJECTED:", 16) == 0, "%s",
           weida_strerror(WEIDA_EREJECTED));
    EXPECT(strncmp(weida_strerror(WEIDA_ETRUNCATED), "WEIDA_ETRUNCATED:", 17) == 0, "%s",
           weida_strerror(WEIDA_ETRUNCATED));
    EXPECT(weida_strerror(-5) != NULL && weida_strerror(99999) != NULL, "never NULL");
}

static void bad_handles(world_t *w) {
    weida_msg_t m;
    size_t n;
    /* zero */
    EXPECT_CODE(weida_puller_recv(0, 64, &m), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_close(0), WEIDA_EBADHANDLE);
    /* forged */
    EXPECT_CODE(weida_close(0xdeadbeefcafef00dULL), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_requester_peer_count(0x0000000700000001ULL, &n), WEIDA_EBADHANDLE);
    /* wrong role: a trust is not a puller, a binding is not a runtime */
    EXPECT_CODE(weida_puller_recv(w->trust, 64, &m), WEIDA_EBADHANDLE);
    weida_requester_t r;
    EXPECT_CODE(weida_runtime_requester(w->binding, w->trust, NULL, &r), WEIDA_EBADHANDLE);
    char why[256];
    CHECK(weida_last_error(why, sizeof why, NULL));
    EXPECT(strstr(why, "binding") != NULL && strstr(why, "runtime") != NULL, "names both roles: %s", why);
    /* closed, then closed again */
    weida_trust_t t;
    CHECK(weida_trust_by_address(&t));
    CHECK(weida_close(t));
    EXPECT_CODE(weida_close(t), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_runtime_pusher(w->rt, t, NULL, &r), WEIDA_EBADHANDLE);
    /* an async call on a bad handle starts nothing: its callback never runs */
    done_t d;
    done_init(&d);
    EXPECT_CODE(weida_puller_recv_async(t, 64, on_done, &d, NULL), WEIDA_EBADHANDLE);
    EXPECT(d.fired == 0, "no callback for a refused start");
}

static void bad_pointers(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/ptr", &p));
    EXPECT_CODE(weida_puller_recv(p, 64, NULL), WEIDA_EINVAL);
    weida_puller_t none = 1;
    EXPECT_CODE(weida_binding_puller(w->binding, NULL, &none), WEIDA_EINVAL);
    EXPECT(none == 0, "a failed call leaves 0 in its out-handle, not a stale value");
    EXPECT_CODE(weida_runtime_new(NULL, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_puller_recv_async(p, 64, NULL, NULL, NULL), WEIDA_EINVAL);
    weida_pusher_t push = pusher_to(w, "/ptr");
    EXPECT_CODE(weida_pusher_send(push, NULL, 5), WEIDA_EINVAL);
    CHECK(weida_pusher_send(push, NULL, 0)); /* an empty payload is fine */
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    const void *data = NULL;
    size_t len = 9;
    CHECK(weida_msg_data(m, &data, &len));
    EXPECT(data != NULL && len == 0, "an empty payload has a valid pointer and length 0");
    EXPECT_CODE(weida_msg_data(m, NULL, &len), WEIDA_EINVAL);
    CHECK(weida_close(m));
    EXPECT_CODE(weida_pusher_connect(push, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_trust_pin("sha256:nothex", &m), WEIDA_EINVALID_FINGERPRINT);
    EXPECT_CODE(weida_identity_generate_for(NULL, 2, &m), WEIDA_EINVAL);
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

static void short_buffers(world_t *w) {
    char small[8];
    size_t needed = 0;
    text_t full = example_url(w->binding, "/x");
    EXPECT_CODE(weida_binding_url(w->binding, "/x", small, sizeof small, &needed), WEIDA_ETRUNCATED);
    EXPECT(needed == strlen(full.s) + 1, "needed %zu, want %zu", needed, strlen(full.s) + 1);
    EXPECT(small[7] == '\0' && strncmp(small, full.s, 7) == 0, "cut and terminated: %s", small);
    EXPECT_CODE(weida_binding_url(w->binding, "/x", NULL, 0, &needed), WEIDA_ETRUNCATED);
    EXPECT(needed == strlen(full.s) + 1, "size query");
    EXPECT_CODE(weida_binding_url(w->binding, "/x", NULL, 10, &needed), WEIDA_EINVAL);
    /* the last error survives being read through a short buffer */
    weida_msg_t m;
    EXPECT_CODE(weida_puller_recv(0, 1, &m), WEIDA_EBADHANDLE);
    char tiny[4];
    EXPECT_CODE(weida_last_error(tiny, sizeof tiny, &needed), WEIDA_ETRUNCATED);
    char whole[256];
    CHECK(weida_last_error(whole, sizeof whole, NULL));
    EXPECT(needed == strlen(whole) + 1 && strncmp(whole, tiny, 3) == 0, "needed %zu for %s", needed, whole);
}

static void bad_options_and_deadlines(world_t *w) {
    weida_runtime_t rt;
    weida_runtime_opts_t o = {0};
    EXPECT_CODE(weida_runtime_new(&o, &rt), WEIDA_EINVAL); /* size unset */
    o.size = sizeof o;
    o.datagrams = 1;
    EXPECT_CODE(weida_runtime_new(&o, &rt), WEIDA_EUNSUPPORTED);
    /* a newer caller's struct: larger, with its unknown tail zero, is fine */
    struct {
        weida_runtime_opts_t known;
        uint64_t future;
    } newer = {{.size = sizeof newer, .endpoint_queue = 8}, 0};
    CHECK(weida_runtime_new(&newer.known, &rt));
    CHECK(weida_close(rt));
    newer.future = 1;
    EXPECT_CODE(weida_runtime_new(&newer.known, &rt), WEIDA_EINVAL);
    /* an older caller's struct: only the size field, every default */
    size_t only_size = sizeof only_size;
    CHECK(weida_runtime_new((const weida_runtime_opts_t *)&only_size, &rt));
    uint64_t d, o2;
    EXPECT_CODE(weida_runtime_drain(rt, -1.0, &d, &o2), WEIDA_EINVAL);
    EXPECT_CODE(weida_runtime_drain(rt, NAN, &d, &o2), WEIDA_EINVAL);
    EXPECT_CODE(weida_runtime_drain(rt, INFINITY, &d, &o2), WEIDA_EINVAL);
    CHECK(weida_close(rt));
    weida_surveyor_t s;
    weida_survey_t sv;
    CHECK(weida_runtime_surveyor(w->rt, w->trust, NULL, &s));
    EXPECT_CODE(weida_surveyor_survey(s, "q", 1, -0.5, 8, &sv), WEIDA_EINVAL);
    CHECK(weida_surveyor_survey(s, "q", 1, 0.01, 8, &sv)); /* nobody to ask: empty, not an error */
    weida_survey_counts_t c = {.size = sizeof c};
    CHECK(weida_survey_counts(sv, &c));
    EXPECT(c.asked == 0 && c.replies == 0, "an empty survey");
    weida_survey_counts_t unsized = {0};
    EXPECT_CODE(weida_survey_counts(sv, &unsized), WEIDA_EINVAL);
    CHECK(weida_close(sv));
    CHECK(weida_close(s));
    weida_bind_opts_t bo = {.size = sizeof bo, .client_auth = 7};
    weida_binding_t b;
    EXPECT_CODE(weida_bind_quic(w->rt, "127.0.0.1:0", w->id, &bo, &b), WEIDA_EINVAL);
}

static void meta_fields(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/meta", &p));
    weida_pusher_t push = pusher_to(w, "/meta");
    CHECK(weida_pusher_send(push, "abc", 3));
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    uint64_t v;
    int present;
    text_t t;
    EXPECT_CODE(weida_meta_uint(m, WEIDA_META_TOPIC, &v, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_text(m, WEIDA_META_CONTENT_LEN, t.s, sizeof t.s, NULL, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_uint(m, WEIDA_META_SEQUENCE, &v, &present), WEIDA_EUNSUPPORTED);
    EXPECT_CODE(weida_meta_uint(m, 999, &v, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_uint(w->trust, WEIDA_META_CONTENT_LEN, &v, &present), WEIDA_EBADHANDLE);
    t = example_meta(m, WEIDA_META_TOPIC);
    EXPECT(!t.present, "a push carries no topic");
    CHECK(weida_close(m));
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

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
    weida_requester_t r;
    CHECK(weida_runtime_requester(w.rt, w.trust, NULL, &r)); /* made, but unusable */
    text_t url = example_url(w.binding, "/down");
    EXPECT(weida_requester_connect(r, url.s) != WEIDA_OK, "no connection after shutdown");
    CHECK(weida_close(r));
    CHECK(weida_close(b.puller));
    world_close(&w);
}

int main(void) {
    library_facts();
    world_t w = world_new();
    bad_handles(&w);
    bad_pointers(&w);
    short_buffers(&w);
    bad_options_and_deadlines(&w);
    meta_fields(&w);
    callbacks_calling_back(&w);
    cancellation(&w);
    close_semantics(&w);
    world_close(&w);
    lifetime();
    example_no_leaks();
    puts("misuse: ok");
    return 0;
}
