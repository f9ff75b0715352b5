/*
 * pubsub.c — Pub/Sub through the C ABI: one publisher, two subscribers,
 * each with its own runtime (as separate programs would have).
 *
 * Claims: publishing before anyone subscribed reaches 0 subscribers (not an
 * error); "px.#" takes px.eur but not fx.usd, "#" takes both; each copy
 * carries its topic; a streamed publication (fan-out) reaches both.
 */
#include "example.h"

/* Receives one copy per expected (topic, payload) pair, in any order:
 * copies travel on separate streams, so arrival order is not guaranteed. */
static void expect_copies(weida_subscriber_t s, int count, const char *const *topics,
                          const char *const *payloads) {
    int seen[4] = {0};
    for (int k = 0; k < count; k++) {
        weida_msg_t m;
        CHECK(weida_subscriber_recv(s, 1 << 20, &m));
        text_t topic = example_meta(m, WEIDA_META_TOPIC);
        int i = 0;
        while (i < count && (seen[i] || strcmp(topics[i], topic.s) != 0)) {
            i++;
        }
        EXPECT(i < count, "an expected topic once, got %s", topic.s);
        EXPECT(example_payload_is(m, payloads[i]), "the payload of %s", topics[i]);
        seen[i] = 1;
        CHECK(weida_close(m));
    }
}

static size_t filters(weida_publisher_t p) {
    size_t n = 0;
    CHECK(weida_publisher_filter_count(p, &n));
    return n;
}

int main(void) {
    weida_runtime_t rt, rt_a, rt_b;
    weida_identity_t id;
    weida_binding_t binding;
    weida_publisher_t publisher;
    weida_trust_t by_address;
    weida_subscriber_t prices, everything;
    size_t reached = 0;

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_publisher(binding, "/quotes", &publisher));
    CHECK(weida_publisher_publish(publisher, "px.eur", "1.08", 4, &reached));
    EXPECT(reached == 0, "nobody subscribed yet, reached %zu", reached);

    CHECK(weida_trust_by_address(&by_address));
    text_t url = example_url(binding, "/quotes");
    CHECK(weida_runtime_new(NULL, &rt_a));
    CHECK(weida_runtime_subscriber(rt_a, by_address, NULL, &prices));
    CHECK(weida_subscriber_connect(prices, url.s));
    CHECK(weida_subscriber_subscribe(prices, "px.#"));
    CHECK(weida_runtime_new(NULL, &rt_b));
    CHECK(weida_runtime_subscriber(rt_b, by_address, NULL, &everything));
    CHECK(weida_subscriber_connect(everything, url.s));
    CHECK(weida_subscriber_subscribe(everything, "#"));
    EXPECT_CODE(weida_subscriber_subscribe(everything, "a#"), WEIDA_EPROTOCOL);

    /* Subscribe returns once the filter is handed to the transport; the
     * publisher applies it a moment later and announces nothing. */
    EXAMPLE_WAIT_UNTIL(filters(publisher) == 2);

    CHECK(weida_publisher_publish(publisher, "px.eur", "1.08", 4, &reached));
    EXPECT(reached == 2, "px.eur reaches both, got %zu", reached);
    CHECK(weida_publisher_publish(publisher, "fx.usd", "0.92", 4, &reached));
    EXPECT(reached == 1, "fx.usd reaches only '#', got %zu", reached);
    const char *eur[] = {"px.eur"}, *eur_usd[] = {"px.eur", "fx.usd"};
    const char *eur_quote[] = {"1.08"}, *eur_usd_quotes[] = {"1.08", "0.92"};
    expect_copies(prices, 1, eur, eur_quote);
    expect_copies(everything, 2, eur_usd, eur_usd_quotes);

    /* A streamed publication, written in chunks to every matching copy. */
    weida_fanout_t f;
    size_t left = 0, complete = 0;
    CHECK(weida_publisher_open(publisher, "px.gbp", &f));
    CHECK(weida_fanout_write_within(f, "0.", 2, 5.0, &left));
    CHECK(weida_fanout_write_within(f, "85", 2, 5.0, &left));
    EXPECT(left == 2, "both copies intact, got %zu", left);
    CHECK(weida_fanout_finish(f, &complete));
    EXPECT(complete == 2, "both got all of it, got %zu", complete);
    EXPECT_CODE(weida_fanout_finish(f, &complete), WEIDA_ENOREPLY);
    CHECK(weida_close(f));
    const char *gbp[] = {"px.gbp"}, *gbp_quote[] = {"0.85"};
    expect_copies(prices, 1, gbp, gbp_quote);
    expect_copies(everything, 1, gbp, gbp_quote);

    uint64_t dropped = 1;
    CHECK(weida_publisher_dropped(publisher, &dropped));
    EXPECT(dropped == 0, "nothing dropped, got %llu", (unsigned long long)dropped);

    EXAMPLE_CLOSE_ALL(prices, everything, publisher, binding, by_address, id, rt_a, rt_b, rt);
    puts("pubsub: ok");
    return 0;
}
