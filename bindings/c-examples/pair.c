/*
 * pair.c — PAIR through the C ABI: a bound end and a dialling end, talking
 * both ways on one connection.
 *
 * Claims: both directions carry whole messages; each end counts one peer;
 * the dialling end connects once (a second connect is WEIDA_ELIMIT).
 */
#include "example.h"

static void expect_msg(weida_paired_t p, const char *want) {
    weida_msg_t m;
    CHECK(weida_paired_recv(p, 1024, &m));
    EXPECT(example_payload_is(m, want), "%s", want);
    CHECK(weida_close(m));
}

int main(void) {
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t by_address;
    weida_paired_t bound, dialling;

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_pair(binding, "/pair", &bound));
    CHECK(weida_trust_by_address(&by_address));
    CHECK(weida_runtime_pair(rt, by_address, NULL, &dialling));
    text_t url = example_url(binding, "/pair");
    CHECK(weida_paired_connect(dialling, url.s));
    EXPECT_CODE(weida_paired_connect(dialling, url.s), WEIDA_ELIMIT);

    /* The dialling end speaks first: the bound end belongs to it from then. */
    CHECK(weida_paired_send(dialling, "ping", 4));
    expect_msg(bound, "ping");
    CHECK(weida_paired_send(bound, "pong", 4));
    expect_msg(dialling, "pong");

    size_t peers = 0;
    CHECK(weida_paired_peer_count(bound, &peers));
    EXPECT(peers == 1, "the bound end has one peer, got %zu", peers);
    CHECK(weida_paired_peer_count(dialling, &peers));
    EXPECT(peers == 1, "the dialling end has one peer, got %zu", peers);
    text_t path;
    CHECK(weida_paired_path(bound, path.s, sizeof path.s, NULL));
    EXPECT(strcmp(path.s, "/pair") == 0, "the bound path, got %s", path.s);

    CHECK(weida_close(dialling));
    CHECK(weida_close(bound));
    CHECK(weida_close(by_address));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(rt));
    example_no_leaks();
    puts("pair: ok");
    return 0;
}
