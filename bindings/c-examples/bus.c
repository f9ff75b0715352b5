/*
 * bus.c — BUS through the C ABI: three members, each bound at its own path
 * and dialling the other two.
 *
 * Claims: each send reaches the 2 other members, never the sender; every
 * member receives exactly the 2 messages the others sent (n*(n-1) = 6
 * deliveries in all).
 */
#include "example.h"

#define MEMBERS 3

int main(void) {
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t by_address;
    weida_bus_t m[MEMBERS];
    text_t urls[MEMBERS];

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_trust_by_address(&by_address));
    for (int i = 0; i < MEMBERS; i++) {
        char path[16];
        snprintf(path, sizeof path, "/member%d", i);
        CHECK(weida_binding_bus(binding, path, by_address, NULL, &m[i]));
        urls[i] = example_url(binding, path);
    }
    for (int i = 0; i < MEMBERS; i++) {
        for (int j = 0; j < MEMBERS; j++) {
            if (i != j) {
                CHECK(weida_bus_connect(m[i], urls[j].s));
            }
        }
    }

    for (int i = 0; i < MEMBERS; i++) {
        char msg[8];
        int n = snprintf(msg, sizeof msg, "from%d", i);
        size_t reached = 0;
        CHECK(weida_bus_send(m[i], msg, (size_t)n, &reached));
        EXPECT(reached == MEMBERS - 1, "member %d reached %d others, got %zu", i, MEMBERS - 1, reached);
    }
    for (int i = 0; i < MEMBERS; i++) {
        int from[MEMBERS] = {0};
        for (int k = 0; k < MEMBERS - 1; k++) {
            weida_msg_t msg;
            CHECK(weida_bus_recv(m[i], 64, &msg));
            const void *data;
            size_t len;
            CHECK(weida_msg_data(msg, &data, &len));
            EXPECT(len == 5 && memcmp(data, "from", 4) == 0, "a member's message");
            int s = ((const char *)data)[4] - '0';
            EXPECT(s >= 0 && s < MEMBERS && s != i && !from[s], "member %d got from%d once, never its own", i, s);
            from[s] = 1;
            CHECK(weida_close(msg));
        }
    }
    uint64_t dropped = 1;
    CHECK(weida_bus_dropped(m[0], &dropped));
    EXPECT(dropped == 0, "no copy dropped, got %llu", (unsigned long long)dropped);

    for (int i = 0; i < MEMBERS; i++) {
        CHECK(weida_close(m[i]));
    }
    CHECK(weida_close(by_address));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(rt));
    example_no_leaks();
    puts("bus: ok");
    return 0;
}
