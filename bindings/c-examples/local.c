/*
 * local.c — local transports and connection statistics through the C ABI.
 *
 * Claims: Req/Rep works over the in-process bus, whose binding names its
 * bus, proves no key (fingerprint "") and hands out a weida+inproc:// URL
 * (a bus bound twice is WEIDA_EADDRINUSE, a name with '/' invalid);
 * Push/Pull works over a unix socket in a fresh directory, and the puller
 * learns the pusher's uid from the kernel (WEIDA_META_LOCAL_PEER) and no
 * key; a requester's connection stats report its URL as dialled, live,
 * with no transport figures over inproc; over QUIC they carry quic-go's
 * measurement (packets and bytes both ways, an RTT). Past the last URL is
 * WEIDA_END, a handle of another role WEIDA_EBADHANDLE, a short URL buffer
 * WEIDA_ETRUNCATED with the figures filled, and an older header's smaller
 * struct gets its own fields and nothing past them.
 */
#include "example.h"

#include <stdint.h>
#include <unistd.h>

/* Answers one request with its payload reversed, on its own thread. */
static void *serve_one(void *arg) {
    weida_replier_t replier = *(weida_replier_t *)arg;
    weida_request_t req;
    CHECK(weida_replier_accept(replier, 1024, &req));
    const void *data;
    size_t len;
    CHECK(weida_request_payload(req, &data, &len));
    char reversed[1024];
    for (size_t i = 0; i < len; i++) {
        reversed[i] = ((const char *)data)[len - 1 - i];
    }
    CHECK(weida_request_reply(req, reversed, len));
    CHECK(weida_close(req));
    return NULL;
}

/* The index-th connection stats of requester r, printed as a line. */
static weida_connection_stats_t requester_stats(weida_requester_t r, size_t index, text_t *url) {
    weida_connection_stats_t s = {.size = sizeof s};
    CHECK(weida_requester_connection_stats(r, index, &s, url->s, sizeof url->s, NULL));
    printf("local: %s live=%d age=%.3fs redials=%llu", url->s, s.live, s.age,
           (unsigned long long)s.redials);
    if (s.has_transport) {
        printf(" rtt=%.6fs tx=%llu pkts/%llu B rx=%llu pkts/%llu B cwnd=%llu", s.rtt,
               (unsigned long long)s.tx_packets, (unsigned long long)s.tx_bytes,
               (unsigned long long)s.rx_packets, (unsigned long long)s.rx_bytes,
               (unsigned long long)s.congestion_window);
    } else {
        printf(" (no transport figures)");
    }
    printf("\n");
    return s;
}

/* One request over url, answered by a thread serving replier. */
static void ask_reversed(weida_requester_t requester, weida_replier_t replier) {
    pthread_t server;
    EXPECT(pthread_create(&server, NULL, serve_one, &replier) == 0, "a thread");
    weida_msg_t reply;
    CHECK(weida_requester_request(requester, "local", 5, 1024, &reply));
    EXPECT(example_payload_is(reply, "lacol"), "the reply reversed");
    CHECK(weida_close(reply));
    pthread_join(server, NULL);
}

static void reqrep_inproc(weida_runtime_t rt, weida_trust_t trust) {
    weida_binding_t binding, taken;
    CHECK(weida_bind_inproc(rt, "c-example-local", &binding));
    EXPECT_CODE(weida_bind_inproc(rt, "c-example-local", &taken), WEIDA_EADDRINUSE);
    EXPECT_CODE(weida_bind_inproc(rt, "a/b", &taken), WEIDA_EINVALID_ADDRESS);
    EXPECT_CODE(weida_bind_inproc(rt, NULL, &taken), WEIDA_EINVAL);
    text_t addr = {.present = 1}, fp = {.present = 1};
    CHECK(weida_binding_local_addr(binding, addr.s, sizeof addr.s, NULL));
    EXPECT(strcmp(addr.s, "c-example-local") == 0, "the bus name, got %s", addr.s);
    CHECK(weida_binding_fingerprint(binding, fp.s, sizeof fp.s, NULL));
    EXPECT(fp.s[0] == '\0', "no key on an in-process binding, got %s", fp.s);
    text_t url = example_url(binding, "/reverse");
    EXPECT(strcmp(url.s, "weida+inproc://c-example-local/reverse") == 0, "the inproc URL, got %s", url.s);

    weida_replier_t replier;
    weida_requester_t requester;
    CHECK(weida_binding_replier(binding, "/reverse", &replier));
    CHECK(weida_runtime_requester(rt, trust, NULL, &requester));
    CHECK(weida_requester_connect(requester, url.s));
    ask_reversed(requester, replier);

    text_t seen = {.present = 1};
    weida_connection_stats_t s = requester_stats(requester, 0, &seen);
    EXPECT(strcmp(seen.s, url.s) == 0, "the URL as dialled, got %s", seen.s);
    EXPECT(s.live == 1 && s.has_transport == 0 && s.has_remote == 0 && s.redials == 0,
           "live, no transport figures, no redial");
    EXPECT_CODE(weida_requester_connection_stats(requester, 1, &s, seen.s, sizeof seen.s, NULL), WEIDA_END);
    EXPECT_CODE(weida_pusher_connection_stats(requester, 0, &s, seen.s, sizeof seen.s, NULL),
                WEIDA_EBADHANDLE);

    CHECK(weida_close(requester));
    CHECK(weida_close(replier));
    CHECK(weida_close(binding));
}

static void pushpull_unix(weida_runtime_t rt, weida_trust_t trust) {
    char dir[] = "/tmp/weida-local-XXXXXX";
    EXPECT(mkdtemp(dir) != NULL, "a temporary directory");
    char sock[64];
    snprintf(sock, sizeof sock, "%s/s.sock", dir);

    weida_binding_t binding;
    weida_puller_t puller;
    weida_pusher_t pusher;
    CHECK(weida_bind_unix(rt, sock, &binding));
    CHECK(weida_binding_puller(binding, "/jobs", &puller));
    text_t url = example_url(binding, "/jobs");
    const char *prefix = "weida+unix://%2Ftmp%2Fweida-local-";
    EXPECT(strncmp(url.s, prefix, strlen(prefix)) == 0, "the unix URL, got %s", url.s);
    CHECK(weida_runtime_pusher(rt, trust, NULL, &pusher));
    CHECK(weida_pusher_connect(pusher, url.s));
    CHECK(weida_pusher_send(pusher, "over unix", 9));

    weida_msg_t m;
    CHECK(weida_puller_recv(puller, 64, &m));
    EXPECT(example_payload_is(m, "over unix"), "the pushed payload");
    text_t local = example_meta(m, WEIDA_META_LOCAL_PEER);
    char want[32];
    snprintf(want, sizeof want, "uid=%u ", (unsigned)getuid());
    EXPECT(local.present && strncmp(local.s, want, strlen(want)) == 0, "the kernel's uid, got %s", local.s);
    EXPECT(!example_meta(m, WEIDA_META_PEER).present, "no key over a unix socket");
    printf("local: unix peer %s\n", local.s);
    CHECK(weida_close(m));

    weida_connection_stats_t s = {.size = sizeof s};
    text_t seen = {.present = 1};
    CHECK(weida_pusher_connection_stats(pusher, 0, &s, seen.s, sizeof seen.s, NULL));
    EXPECT(s.live == 1 && s.has_transport == 0, "live, no transport figures over unix");

    CHECK(weida_close(pusher));
    CHECK(weida_close(puller));
    CHECK(weida_close(binding));
    unlink(sock);
    rmdir(dir);
}

static void stats_quic(weida_runtime_t rt, weida_trust_t trust) {
    weida_identity_t id;
    weida_binding_t binding;
    weida_replier_t replier;
    weida_requester_t requester;
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_replier(binding, "/reverse", &replier));
    CHECK(weida_runtime_requester(rt, trust, NULL, &requester));
    text_t url = example_url(binding, "/reverse");
    CHECK(weida_requester_connect(requester, url.s));
    ask_reversed(requester, replier);

    text_t seen = {.present = 1};
    weida_connection_stats_t s = requester_stats(requester, 0, &seen);
    EXPECT(strcmp(seen.s, url.s) == 0, "the URL as dialled, got %s", seen.s);
    EXPECT(s.live == 1 && s.has_transport == 1, "live, with QUIC's figures");
    EXPECT(s.tx_packets > 0 && s.tx_bytes > 0 && s.rx_packets > 0 && s.rx_bytes > 0,
           "traffic both ways");
    EXPECT(s.rtt > 0 && s.rtt < 10 && s.age >= 0, "a plausible RTT, got %f", s.rtt);
    EXPECT(s.has_remote == 0, "no path report in this build");

    /* A short URL buffer: the struct is filled, the URL cut. */
    size_t needed = 0;
    char tiny[8];
    weida_connection_stats_t again = {.size = sizeof again};
    EXPECT_CODE(weida_requester_connection_stats(requester, 0, &again, tiny, sizeof tiny, &needed),
                WEIDA_ETRUNCATED);
    EXPECT(needed == strlen(url.s) + 1 && again.live == 1, "the URL's size and the figures");

    /* An older header's smaller struct: only the fields it declares are
     * written, nothing past its size. */
    weida_connection_stats_t older;
    memset(&older, 0xab, sizeof older);
    older.size = offsetof(weida_connection_stats_t, rtt);
    CHECK(weida_requester_connection_stats(requester, 0, &older, seen.s, sizeof seen.s, NULL));
    EXPECT(older.live == 1 && older.has_transport == 1 && older.redials == 0, "the leading fields");
    const unsigned char *beyond = (const unsigned char *)&older + older.size;
    for (size_t i = 0; i < sizeof older - older.size; i++) {
        EXPECT(beyond[i] == 0xab, "nothing written past the declared size (byte %zu)", i);
    }
    EXPECT_CODE(weida_requester_connection_stats(requester, 0, NULL, seen.s, sizeof seen.s, NULL), WEIDA_EINVAL);
    weida_connection_stats_t unsized = {.size = 0};
    EXPECT_CODE(weida_requester_connection_stats(requester, 0, &unsized, seen.s, sizeof seen.s, NULL), WEIDA_EINVAL);

    CHECK(weida_close(requester));
    CHECK(weida_close(replier));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
}

int main(void) {
    weida_runtime_t rt;
    weida_trust_t by_address;
    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_trust_by_address(&by_address));

    reqrep_inproc(rt, by_address);
    pushpull_unix(rt, by_address);
    stats_quic(rt, by_address);

    CHECK(weida_close(by_address));
    CHECK(weida_runtime_shutdown(rt));
    CHECK(weida_close(rt));
    example_no_leaks();
    printf("local: ok\n");
    return 0;
}
