/*
 * pushpull.c — Push/Pull through the C ABI, both halves in one process.
 *
 * Claims: five whole jobs pushed fire-and-forget all arrive, each with the
 * path it was addressed at; a streamed job's finish returns with the
 * transport receipt and the puller reads it piece by piece; a job above the
 * puller's ceiling is refused with WEIDA_ELIMIT and the puller stays usable.
 */
#include "example.h"

int main(void) {
    /* A puller bound at /jobs, a pusher dialled to it: example.h's
     * example_pushpull_open shows the calls. */
    example_pushpull_t jobs = example_pushpull_open("/jobs");
    weida_pusher_t pusher = jobs.pusher;
    weida_puller_t puller = jobs.puller;

    /* Five whole jobs; arrival order across streams is not guaranteed. */
    for (int i = 0; i < 5; i++) {
        char job[16];
        int n = snprintf(job, sizeof job, "job-%d", i);
        CHECK(weida_pusher_send(pusher, job, (size_t)n));
    }
    int seen[5] = {0};
    for (int i = 0; i < 5; i++) {
        weida_msg_t m;
        CHECK(weida_puller_recv(puller, 64, &m));
        const void *data;
        size_t len;
        CHECK(weida_msg_data(m, &data, &len));
        EXPECT(len == 5 && memcmp(data, "job-", 4) == 0, "a job, got %.*s", (int)len, (const char *)data);
        int k = ((const char *)data)[4] - '0';
        EXPECT(k >= 0 && k < 5 && !seen[k], "each job once, got job-%d again", k);
        seen[k] = 1;
        text_t endpoint = example_meta(m, WEIDA_META_ENDPOINT);
        EXPECT(strcmp(endpoint.s, "/jobs") == 0, "addressed at /jobs, got %s", endpoint.s);
        CHECK(weida_close(m));
    }

    /* A streamed job: finish waits for the transport receipt. */
    weida_ostream_t out;
    CHECK(weida_pusher_open(pusher, &out));
    static char big[256 * 1024];
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (char)('a' + i % 26);
    }
    for (size_t off = 0; off < sizeof big; off += 64 * 1024) {
        CHECK(weida_ostream_write(out, big + off, 64 * 1024));
    }
    weida_istream_t in;
    CHECK(weida_puller_recv_stream(puller, &in));
    static char got[sizeof big];
    size_t total = 0, n = 0;
    int rc = WEIDA_OK;
    /* Read while finishing would also work; here the puller reads after
     * the writes, which the stream window (>= 1 MiB) allows. */
    CHECK(weida_ostream_finish(out));
    while ((rc = weida_istream_read(in, got + total, 16 * 1024, &n)) == WEIDA_OK) {
        total += n;
    }
    EXPECT_CODE(rc, WEIDA_END);
    EXPECT(total == sizeof big && memcmp(got, big, total) == 0, "the streamed job whole, got %zu bytes", total);
    CHECK(weida_close(in));
    CHECK(weida_close(out));

    /* Above the ceiling: refused, and the puller goes on. */
    CHECK(weida_pusher_send(pusher, "far too long for the ceiling", 28));
    weida_msg_t m;
    EXPECT_CODE(weida_puller_recv(puller, 8, &m), WEIDA_ELIMIT);
    CHECK(weida_pusher_send(pusher, "short", 5));
    CHECK(weida_puller_recv(puller, 8, &m));
    EXPECT(example_payload_is(m, "short"), "the next job after a refusal");
    CHECK(weida_close(m));

    size_t peers = 0;
    CHECK(weida_pusher_peer_count(pusher, &peers));
    EXPECT(peers == 1, "one live puller, got %zu", peers);

    example_pushpull_close(jobs);
    puts("pushpull: ok");
    return 0;
}
