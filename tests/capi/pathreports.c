/*
 * pathreports.c — path reports (PROTOCOL.md §8.9) through the C ABI.
 *
 * Claims: with path_report on both runtimes, a pusher's connection_stats
 * over QUIC gain the peer's record (has_remote, its age, the figures its
 * quic-go measures flagged in remote_known and nothing it does not); a
 * connection over inproc never has one, nor one over QUIC when the dialler
 * left path_report off.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#include <time.h>

#include "testkit.h"

static weida_runtime_t runtime_with(int path_report) {
    weida_runtime_opts_t o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.path_report = path_report;
    weida_runtime_t rt;
    CHECK(weida_runtime_new(&o, &rt));
    return rt;
}

/* One push from a new pusher of client to binding's /p, received. */
static weida_pusher_t push_once(weida_runtime_t client, weida_binding_t binding, weida_puller_t puller,
                                weida_trust_t trust) {
    weida_pusher_t pusher;
    CHECK(weida_runtime_pusher(client, trust, NULL, &pusher));
    text_t url = example_url(binding, "/p");
    CHECK(weida_pusher_connect(pusher, url.s));
    CHECK(weida_pusher_send(pusher, "hi", 2));
    weida_msg_t msg;
    CHECK(weida_puller_recv(puller, 64, &msg));
    CHECK(weida_close(msg));
    return pusher;
}

static weida_connection_stats_t stats_of(weida_pusher_t pusher) {
    weida_connection_stats_t s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    char url[512];
    CHECK(weida_pusher_connection_stats(pusher, 0, &s, url, sizeof url, NULL));
    return s;
}

/* Polls until the peer's first record arrived (sent right after the
 * connection opened, so this waits one round trip, not the 2 s clock). */
static weida_connection_stats_t await_remote(weida_pusher_t pusher) {
    for (int i = 0; i < 4000; i++) {
        weida_connection_stats_t s = stats_of(pusher);
        if (s.has_remote) return s;
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    EXPECT(0, "no remote record within 20 s");
    return stats_of(pusher);
}

static void over_quic(int client_reports) {
    weida_runtime_t server = runtime_with(1), client = runtime_with(client_reports);
    weida_identity_t id;
    CHECK(weida_identity_generate(&id));
    weida_binding_t binding;
    CHECK(weida_bind_quic(server, "127.0.0.1:0", id, NULL, &binding));
    weida_trust_t trust;
    CHECK(weida_trust_by_address(&trust));
    weida_puller_t puller;
    CHECK(weida_binding_puller(binding, "/p", &puller));
    weida_pusher_t pusher = push_once(client, binding, puller, trust);
    if (client_reports) {
        weida_connection_stats_t s = await_remote(pusher);
        uint32_t measured = WEIDA_REMOTE_RTT | WEIDA_REMOTE_MIN_RTT | WEIDA_REMOTE_CONGESTION_WINDOW |
                            WEIDA_REMOTE_LOST_PACKETS | WEIDA_REMOTE_SENT_PACKETS | WEIDA_REMOTE_TX_BYTES |
                            WEIDA_REMOTE_RX_BYTES;
        uint32_t unmeasured = WEIDA_REMOTE_CURRENT_MTU | WEIDA_REMOTE_CONGESTION_EVENTS |
                              WEIDA_REMOTE_TX_DATAGRAMS | WEIDA_REMOTE_RX_DATAGRAMS;
        EXPECT((s.remote_known & measured) == measured, "known 0x%x lacks 0x%x", s.remote_known, measured);
        EXPECT((s.remote_known & unmeasured) == 0, "known 0x%x states unmeasured figures", s.remote_known);
        EXPECT(s.remote_rtt > 0 && s.remote_age >= 0 && s.remote_tx_bytes > 0 && s.remote_rx_bytes > 0 &&
                   s.remote_congestion_window > 0,
               "rtt %g age %g tx %llu rx %llu", s.remote_rtt, s.remote_age,
               (unsigned long long)s.remote_tx_bytes, (unsigned long long)s.remote_rx_bytes);
        EXPECT(s.has_transport == 1, "QUIC has transport figures");
    } else {
        /* The push rode a later stream than any REPORT the server could
         * have opened, which this side would have refused by closing. */
        weida_connection_stats_t s = stats_of(pusher);
        EXPECT(s.has_remote == 0 && s.live == 1, "no remote record with path_report off here");
    }
    CHECK(weida_close(pusher));
    CHECK(weida_close(puller));
    CHECK(weida_close(trust));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(client));
    CHECK(weida_close(server));
}

static void over_inproc(void) {
    weida_runtime_t server = runtime_with(1), client = runtime_with(1);
    weida_binding_t binding;
    CHECK(weida_bind_inproc(server, "pathreports-c", &binding));
    weida_trust_t trust;
    CHECK(weida_trust_by_address(&trust));
    weida_puller_t puller;
    CHECK(weida_binding_puller(binding, "/p", &puller));
    weida_pusher_t pusher = push_once(client, binding, puller, trust);
    weida_connection_stats_t s = stats_of(pusher);
    EXPECT(s.live == 1 && s.has_transport == 0 && s.has_remote == 0 && s.remote_known == 0,
           "inproc: live %d transport %d remote %d", s.live, s.has_transport, s.has_remote);
    CHECK(weida_close(pusher));
    CHECK(weida_close(puller));
    CHECK(weida_close(trust));
    CHECK(weida_close(binding));
    CHECK(weida_close(client));
    CHECK(weida_close(server));
}

int main(void) {
    over_quic(1);
    over_quic(0);
    over_inproc();
    uint64_t live = 1;
    CHECK(weida_handles_live(&live));
    EXPECT(live == 0, "no handle left open, got %llu", (unsigned long long)live);
    printf("pathreports: ok\n");
    return 0;
}
