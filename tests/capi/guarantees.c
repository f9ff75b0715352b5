/*
 * guarantees.c — guarantee sets through weida_runtime_opts_t.
 *
 * Claims: 1,000 pushes (one burst, from a thread of their own) between runtimes that require
 * PerProducer reassembly arrive in the producer's order, numbered 0..999 with nothing
 * missed; a dialler requiring reassembly of a core listener fails connect
 * with WEIDA_ENEGOTIATION naming the dimension; an unknown level and a
 * contradictory set are refused by weida_runtime_new naming the dimension;
 * weida_runtime_offered reads back what was configured.
 */
#include <pthread.h>

#include "testkit.h"

#define PUSHES 1000

static weida_guarantees_t reassemble(void) {
    weida_guarantees_t g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.ordering = WEIDA_ORDERING_REASSEMBLE;
    return g;
}

static weida_runtime_t runtime_requiring(const weida_guarantees_t *g) {
    weida_runtime_opts_t o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.required = g;
    weida_runtime_t rt;
    CHECK(weida_runtime_new(&o, &rt));
    return rt;
}

/* The runtime_new failure for required = *g, whose sentence must name dimension. */
static int expect_refused(const weida_guarantees_t *g, const char *dimension) {
    weida_runtime_opts_t o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.required = g;
    weida_runtime_t rt = 0;
    int rc = weida_runtime_new(&o, &rt);
    EXPECT(rc != WEIDA_OK && rt == 0, "a set refused at creation, got %d", rc);
    char why[512];
    weida_last_error(why, sizeof why, NULL);
    EXPECT(strstr(why, dimension) != NULL, "the refusal names %s: %s", dimension, why);
    return rc;
}

/* Sends PUSHES bodies "0".."999" on the pusher it is handed, while the
 * main thread receives: the receiver grants no more streams than its
 * reorder hold can wait behind, so a burst cannot overrun the hold. */
static void *send_all(void *arg) {
    weida_pusher_t pusher = *(weida_pusher_t *)arg;
    for (int i = 0; i < PUSHES; i++) {
        char body[16];
        int n = snprintf(body, sizeof body, "%d", i);
        CHECK(weida_pusher_send(pusher, body, (size_t)n));
    }
    return NULL;
}

static void in_order_under_reassembly(void) {
    weida_guarantees_t g = reassemble();
    weida_runtime_t server = runtime_requiring(&g), client = runtime_requiring(&g);
    weida_identity_t id;
    weida_binding_t binding;
    weida_puller_t puller;
    weida_trust_t trust;
    weida_pusher_t pusher;
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(server, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_puller(binding, "/ordered", &puller));
    CHECK(weida_trust_by_address(&trust));
    CHECK(weida_runtime_pusher(client, trust, NULL, &pusher));
    text_t url = example_url(binding, "/ordered");
    CHECK(weida_pusher_connect(pusher, url.s));

    pthread_t sender;
    EXPECT(pthread_create(&sender, NULL, send_all, &pusher) == 0, "the sender thread starts");
    for (int i = 0; i < PUSHES; i++) {
        weida_msg_t m;
        CHECK(weida_puller_recv(puller, 64, &m));
        const void *data;
        size_t len;
        CHECK(weida_msg_data(m, &data, &len));
        char want[16];
        int n = snprintf(want, sizeof want, "%d", i);
        EXPECT(len == (size_t)n && memcmp(data, want, len) == 0, "push %d arrives %dth, got %.*s", i, i,
               (int)len, (const char *)data);
        uint64_t seq = 0, missed = 0;
        int has = 0;
        CHECK(weida_meta_uint(m, WEIDA_META_SEQUENCE, &seq, &has));
        EXPECT(has && seq == (uint64_t)i, "push %d is number %d, got %llu (has %d)", i, i,
               (unsigned long long)seq, has);
        CHECK(weida_meta_uint(m, WEIDA_META_MISSED, &missed, &has));
        EXPECT(!has, "nothing missed before push %d, got %llu", i, (unsigned long long)missed);
        CHECK(weida_close(m));
    }
    EXPECT(pthread_join(sender, NULL) == 0, "the sender thread ends");
    uint64_t suppressed = 1;
    CHECK(weida_runtime_suppressed_duplicates(server, &suppressed));
    EXPECT(suppressed == 0, "no deduplication agreed, nothing suppressed, got %llu", (unsigned long long)suppressed);

    weida_guarantees_t back;
    memset(&back, 0, sizeof back);
    back.size = sizeof back;
    CHECK(weida_runtime_offered(client, &back));
    EXPECT(back.ordering == WEIDA_ORDERING_REASSEMBLE && back.deduplication == WEIDA_DEDUP_NONE &&
               back.acknowledgement == WEIDA_TRANSPORT_RECEIPT,
           "offered reads back as configured, got ordering %d dedup %d ack %d", back.ordering,
           back.deduplication, back.acknowledgement);

    CHECK(weida_close(pusher));
    CHECK(weida_close(puller));
    CHECK(weida_close(binding));
    CHECK(weida_close(trust));
    CHECK(weida_close(id));
    CHECK(weida_close(client));
    CHECK(weida_close(server));
}

static void required_of_a_core_peer_fails(void) {
    weida_runtime_t server, client;
    CHECK(weida_runtime_new(NULL, &server));
    weida_guarantees_t g = reassemble();
    client = runtime_requiring(&g);
    weida_identity_t id;
    weida_binding_t binding;
    weida_puller_t puller;
    weida_trust_t trust;
    weida_pusher_t pusher;
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(server, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_puller(binding, "/core", &puller));
    CHECK(weida_trust_by_address(&trust));
    CHECK(weida_runtime_pusher(client, trust, NULL, &pusher));
    text_t url = example_url(binding, "/core");
    EXPECT_CODE(weida_pusher_connect(pusher, url.s), WEIDA_ENEGOTIATION);
    char why[512];
    weida_last_error(why, sizeof why, NULL);
    EXPECT(strstr(why, "ordering") != NULL, "the negotiation failure names ordering: %s", why);
    CHECK(weida_close(pusher));
    CHECK(weida_close(puller));
    CHECK(weida_close(binding));
    CHECK(weida_close(trust));
    CHECK(weida_close(id));
    CHECK(weida_close(client));
    CHECK(weida_close(server));
}

static void bad_sets_are_refused_at_creation(void) {
    weida_guarantees_t g = reassemble();
    g.ordering = 9;
    expect_refused(&g, "ordering");
    g = reassemble();
    g.ordering = -1;
    expect_refused(&g, "ordering");
    g = reassemble();
    g.deduplication = WEIDA_DEDUP_BOUNDED; /* without its window */
    expect_refused(&g, "dedup");
    g = reassemble();
    g.durability = WEIDA_DURABILITY_FLUSHED; /* without Stored */
    expect_refused(&g, "durability");
    g = reassemble();
    g.delivery = WEIDA_DELIVERY_AT_LEAST_ONCE; /* well formed, not honoured by this build */
    int rc = expect_refused(&g, "delivery");
    EXPECT(rc == WEIDA_EUNSUPPORTED, "a level this build cannot honour is WEIDA_EUNSUPPORTED, got %d", rc);
    g = reassemble();
    g.control_isolated = 2;
    expect_refused(&g, "control_isolated");

    /* An offer short of the requirement. */
    weida_guarantees_t required = reassemble(), offered;
    memset(&offered, 0, sizeof offered);
    offered.size = sizeof offered;
    weida_runtime_opts_t o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.required = &required;
    o.offered = &offered;
    weida_runtime_t rt = 0;
    EXPECT(weida_runtime_new(&o, &rt) != WEIDA_OK && rt == 0, "offered below required is refused");
    char why[512];
    weida_last_error(why, sizeof why, NULL);
    EXPECT(strstr(why, "ordering") != NULL, "the refusal names ordering: %s", why);

    /* Offered beyond required (detect required, reassemble offered) is fine. */
    required.ordering = WEIDA_ORDERING_DETECT;
    offered = reassemble();
    CHECK(weida_runtime_new(&o, &rt));
    CHECK(weida_close(rt));
}

int main(void) {
    in_order_under_reassembly();
    required_of_a_core_peer_fails();
    bad_sets_are_refused_at_creation();
    uint64_t live = 1;
    CHECK(weida_handles_live(&live));
    EXPECT(live == 0, "every handle closed, %llu live", (unsigned long long)live);
    puts("guarantees: ok");
    return 0;
}
