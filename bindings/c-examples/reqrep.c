/*
 * reqrep.c — Req/Rep through the C ABI, both halves in one process.
 *
 * The replier runs on completion callbacks (the form asyncio and Node use):
 * each accepted request is answered from inside the callback with the
 * _async reply, and the next accept is armed there too — a callback calling
 * back into the library. The requester uses the blocking form.
 *
 * Claims: a request is answered in upper case; the replier saw the path it
 * was addressed at and no peer key (the client is anonymous); a streamed
 * exchange works piece by piece; an unserved path is WEIDA_EUNKNOWN_ENDPOINT;
 * a wrong key is WEIDA_EUNTRUSTED naming the key that answered; a reply
 * above the ceiling is WEIDA_ELIMIT.
 */
#include "example.h"

#include <ctype.h>

typedef struct {
    weida_replier_t replier;
    pthread_mutex_t mu;
    pthread_cond_t stopped_cv;
    int stopped;      /* the accept loop ended (replier closed) */
    int replying;     /* replies started whose callback has not run */
    int bad_endpoint; /* a request's meta was not what was sent */
} server_t;

/* One reply in flight: the request is closed once its reply is written
 * (closing it earlier would send NO_REPLY instead). */
typedef struct {
    server_t *srv;
    weida_request_t req;
} reply_t;

static void on_accept(void *user, int code, uint64_t a, uint64_t b);

static void on_replied(void *user, int code, uint64_t a, uint64_t b) {
    (void)a, (void)b;
    reply_t *r = user;
    if (code != WEIDA_OK) {
        fprintf(stderr, "reply failed: %s\n", weida_strerror(code));
    }
    weida_close(r->req);
    pthread_mutex_lock(&r->srv->mu);
    r->srv->replying--;
    pthread_cond_signal(&r->srv->stopped_cv);
    pthread_mutex_unlock(&r->srv->mu);
    free(r);
}

static void arm_accept(server_t *srv) {
    CHECK(weida_replier_accept_async(srv->replier, 1 << 20, on_accept, srv, NULL));
}

static void on_accept(void *user, int code, uint64_t a, uint64_t b) {
    (void)b;
    server_t *srv = user;
    if (code != WEIDA_OK) { /* WEIDA_ECANCELED once the replier is closed */
        pthread_mutex_lock(&srv->mu);
        srv->stopped = 1;
        pthread_cond_signal(&srv->stopped_cv);
        pthread_mutex_unlock(&srv->mu);
        return;
    }
    weida_request_t req = a;
    text_t endpoint = example_meta(req, WEIDA_META_ENDPOINT);
    text_t peer = example_meta(req, WEIDA_META_PEER);
    if (strcmp(endpoint.s, "/upper") != 0 || peer.present) {
        srv->bad_endpoint = 1;
    }
    const void *data;
    size_t len;
    CHECK(weida_request_payload(req, &data, &len));
    char upper[256];
    size_t n = len < sizeof upper ? len : sizeof upper;
    for (size_t i = 0; i < n; i++) {
        upper[i] = (char)toupper(((const unsigned char *)data)[i]);
    }
    reply_t *r = malloc(sizeof *r);
    EXPECT(r != NULL, "memory");
    r->srv = srv;
    r->req = req;
    pthread_mutex_lock(&srv->mu);
    srv->replying++;
    pthread_mutex_unlock(&srv->mu);
    /* The reply is copied by the call: upper may go out of scope. */
    CHECK(weida_request_reply_async(req, upper, n, on_replied, r, NULL));
    arm_accept(srv);
}

int main(void) {
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t by_address;
    weida_requester_t requester;
    server_t srv = {.mu = PTHREAD_MUTEX_INITIALIZER, .stopped_cv = PTHREAD_COND_INITIALIZER};

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_replier(binding, "/upper", &srv.replier));
    arm_accept(&srv);

    CHECK(weida_trust_by_address(&by_address));
    CHECK(weida_runtime_requester(rt, by_address, NULL, &requester));
    text_t url = example_url(binding, "/upper");
    CHECK(weida_requester_connect(requester, url.s));

    /* A whole request and its whole reply. */
    weida_msg_t reply;
    CHECK(weida_requester_request(requester, "hello weida", 11, 1 << 20, &reply));
    EXPECT(example_payload_is(reply, "HELLO WEIDA"), "the reply in upper case");
    text_t reply_endpoint = example_meta(reply, WEIDA_META_ENDPOINT);
    EXPECT(!reply_endpoint.present, "a reply half names no endpoint, got %s", reply_endpoint.s);
    CHECK(weida_close(reply));

    /* The streamed form: the request written in pieces, the reply read in pieces. */
    weida_ostream_t request;
    weida_reply_t pending;
    CHECK(weida_requester_open(requester, &request, &pending));
    CHECK(weida_ostream_write(request, "streamed ", 9));
    CHECK(weida_ostream_write(request, "exchange", 8));
    CHECK(weida_ostream_finish(request));
    weida_istream_t in;
    CHECK(weida_reply_recv(pending, &in));
    char got[64];
    size_t total = 0, n = 0;
    int rc;
    while ((rc = weida_istream_read(in, got + total, 4, &n)) == WEIDA_OK) {
        total += n;
    }
    EXPECT_CODE(rc, WEIDA_END);
    EXPECT(total == 17 && memcmp(got, "STREAMED EXCHANGE", 17) == 0, "the streamed reply, got %.*s",
           (int)total, got);
    CHECK(weida_close(in));
    CHECK(weida_close(pending));
    CHECK(weida_close(request));

    /* A reply above the ceiling is refused, not held. */
    EXPECT_CODE(weida_requester_request(requester, "too long", 8, 4, &reply), WEIDA_ELIMIT);

    /* An unserved path is refused by the server. */
    weida_requester_t lost;
    CHECK(weida_runtime_requester(rt, by_address, NULL, &lost));
    text_t nowhere = example_url(binding, "/nowhere");
    CHECK(weida_requester_connect(lost, nowhere.s));
    EXPECT_CODE(weida_requester_request(lost, "x", 1, 64, &reply), WEIDA_EUNKNOWN_ENDPOINT);
    CHECK(weida_close(lost));

    /* A wrong key is refused, and the sentence names the key that answered. */
    text_t fingerprint;
    CHECK(weida_binding_fingerprint(binding, fingerprint.s, sizeof fingerprint.s, NULL));
    text_t addr;
    CHECK(weida_binding_local_addr(binding, addr.s, sizeof addr.s, NULL));
    char wrong[600];
    snprintf(wrong, sizeof wrong, "weida://sha256:%064d@%s/upper", 0, addr.s);
    weida_requester_t mistrusting;
    CHECK(weida_runtime_requester(rt, by_address, NULL, &mistrusting));
    EXPECT_CODE(weida_requester_connect(mistrusting, wrong), WEIDA_EUNTRUSTED);
    char why[1024];
    CHECK(weida_last_error(why, sizeof why, NULL));
    EXPECT(strstr(why, fingerprint.s) != NULL, "the error names %s: %s", fingerprint.s, why);
    CHECK(weida_close(mistrusting));

    /* Closing the replier ends its pending accept with WEIDA_ECANCELED. */
    CHECK(weida_close(srv.replier));
    pthread_mutex_lock(&srv.mu);
    while (!srv.stopped || srv.replying > 0) {
        pthread_cond_wait(&srv.stopped_cv, &srv.mu);
    }
    pthread_mutex_unlock(&srv.mu);
    EXPECT(!srv.bad_endpoint, "every request arrived at /upper from an anonymous client");

    CHECK(weida_close(requester));
    CHECK(weida_close(by_address));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(rt));
    example_no_leaks();
    puts("reqrep: ok");
    return 0;
}
