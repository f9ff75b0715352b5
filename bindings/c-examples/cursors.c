/*
 * cursors.c — completion reports ("cursors") through the C ABI, both halves
 * in one process.
 *
 * Claims: a pushed job that orders PROCESSED gets cursors; the puller sees
 * the order in the message's meta and through its reporter, reports the
 * job processed at its full length and finishes; the sender watches its
 * cursors until PROCESSED reaches the body's length, and then the report
 * ends (WEIDA_END). A wait with nothing reported times out without ending
 * the report. An empty order orders nothing (no cursors, no reporter); a
 * reserved level or an unknown mode is WEIDA_EPROTOCOL. A streamed job can
 * order an application level in FINAL_ONLY mode, its cursors handed out
 * once, watched here with the callback form.
 */
#include "example.h"

#define JOB_BYTES (100 * 1000)
#define APP_LEVEL (WEIDA_APPLICATION_FLOOR + 3)

/* The callback form's outcome, handed from a library thread to main. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int done;
    int code;
} outcome_t;

static void on_changed(void *user, int code, uint64_t a, uint64_t b) {
    (void)a;
    (void)b;
    outcome_t *o = user;
    pthread_mutex_lock(&o->mu);
    o->code = code;
    o->done = 1;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->mu);
}

/* One callback-form wait for a change: WEIDA_OK, WEIDA_END or a failure. */
static int changed_by_callback(weida_cursors_t c) {
    outcome_t o = {.done = 0};
    pthread_mutex_init(&o.mu, NULL);
    pthread_cond_init(&o.cond, NULL);
    CHECK(weida_cursors_changed_async(c, 10.0, on_changed, &o, NULL));
    pthread_mutex_lock(&o.mu);
    while (!o.done) {
        pthread_cond_wait(&o.cond, &o.mu);
    }
    pthread_mutex_unlock(&o.mu);
    pthread_mutex_destroy(&o.mu);
    pthread_cond_destroy(&o.cond);
    return o.code;
}

/* The highest offset reported for level, or 0 when none was. */
static uint64_t offset_of(weida_cursors_t c, uint64_t level) {
    uint64_t offset = 0;
    int present = 0;
    CHECK(weida_cursors_offset(c, level, &offset, &present));
    return present ? offset : 0;
}

/* A whole job that orders PROCESSED, reported by the puller. */
static void whole_job(weida_pusher_t pusher, weida_puller_t puller) {
    static char job[JOB_BYTES];
    memset(job, 'j', sizeof job);
    const uint64_t processed = WEIDA_PROCESSED;
    weida_cursors_t cursors;
    CHECK(weida_pusher_send_reporting(pusher, job, sizeof job, &processed, 1, WEIDA_PROGRESS, &cursors));
    EXPECT(cursors != 0, "cursors for an order");

    /* Nothing is reported before the puller reads the job: a bounded wait
     * times out, and the report goes on. */
    EXPECT_CODE(weida_cursors_changed(cursors, 0.05), WEIDA_ETIMEDOUT);

    weida_msg_t m;
    weida_reporter_t reporter;
    CHECK(weida_puller_recv_reporting(puller, JOB_BYTES, &m, &reporter));
    EXPECT(reporter != 0, "a reporter for an ordered job");
    uint64_t levels[4];
    size_t n = 0;
    int present = 0;
    CHECK(weida_meta_report_levels(m, levels, 4, &n, &present));
    EXPECT(present && n == 1 && levels[0] == WEIDA_PROCESSED, "the order in the meta, got %zu levels", n);
    uint64_t mode = 99, id = 0;
    CHECK(weida_meta_uint(m, WEIDA_META_REPORT_MODE, &mode, &present));
    EXPECT(present && mode == WEIDA_PROGRESS, "PROGRESS in the meta, got %llu", (unsigned long long)mode);
    CHECK(weida_meta_uint(m, WEIDA_META_REPORT_ID, &id, &present));
    EXPECT(present, "a report id in the meta");
    CHECK(weida_reporter_levels(reporter, levels, 4, &n));
    EXPECT(n == 1 && levels[0] == WEIDA_PROCESSED, "the reporter's levels, got %zu", n);
    int rmode = -1;
    CHECK(weida_reporter_mode(reporter, &rmode));
    EXPECT(rmode == WEIDA_PROGRESS, "the reporter's mode, got %d", rmode);

    /* The job is handled: processed up to its length, then the end. */
    const void *data;
    size_t len;
    CHECK(weida_msg_data(m, &data, &len));
    CHECK(weida_reporter_report(reporter, WEIDA_PROCESSED, len));
    CHECK(weida_reporter_finish(reporter));
    EXPECT_CODE(weida_reporter_finish(reporter), WEIDA_ENOREPLY);
    CHECK(weida_close(reporter));
    CHECK(weida_close(m));

    /* The sender watches until PROCESSED covers the whole body. */
    int rc;
    while ((rc = weida_cursors_changed(cursors, 10.0)) == WEIDA_OK) {
        if (offset_of(cursors, WEIDA_PROCESSED) == JOB_BYTES) {
            break;
        }
    }
    EXPECT(rc == WEIDA_OK, "PROCESSED reached %d before the report ended, got %s", JOB_BYTES, weida_strerror(rc));
    uint64_t snap_levels[2], snap_offsets[2];
    CHECK(weida_cursors_snapshot(cursors, snap_levels, snap_offsets, 2, &n));
    EXPECT(n == 1 && snap_levels[0] == WEIDA_PROCESSED && snap_offsets[0] == JOB_BYTES,
           "the snapshot {PROCESSED: %d}, got %zu entries", JOB_BYTES, n);
    EXPECT_CODE(weida_cursors_snapshot(cursors, NULL, NULL, 0, &n), WEIDA_ETRUNCATED);
    EXPECT(n == 1, "the count asked with cap 0, got %zu", n);
    /* The reporter finished: once every change is read the report ends. */
    while ((rc = weida_cursors_changed(cursors, 10.0)) == WEIDA_OK) {
    }
    EXPECT_CODE(rc, WEIDA_END);
    CHECK(weida_close(cursors));
}

/* Orders that order nothing, and orders the library refuses. */
static void bad_and_empty_orders(weida_pusher_t pusher, weida_puller_t puller) {
    const uint64_t reserved = 7, processed = WEIDA_PROCESSED;
    weida_cursors_t cursors = 1;
    EXPECT_CODE(weida_pusher_send_reporting(pusher, "x", 1, &reserved, 1, WEIDA_PROGRESS, &cursors), WEIDA_EPROTOCOL);
    EXPECT(cursors == 0, "no cursors after a failure");
    EXPECT_CODE(weida_pusher_send_reporting(pusher, "x", 1, &processed, 1, 9, &cursors), WEIDA_EPROTOCOL);

    CHECK(weida_pusher_send_reporting(pusher, "plain", 5, NULL, 0, WEIDA_PROGRESS, &cursors));
    EXPECT(cursors == 0, "no cursors for an empty order");
    weida_msg_t m;
    weida_reporter_t reporter = 1;
    CHECK(weida_puller_recv_reporting(puller, 64, &m, &reporter));
    EXPECT(example_payload_is(m, "plain") && reporter == 0, "no reporter without an order");
    uint64_t level;
    size_t n = 1;
    int present = 1;
    CHECK(weida_meta_report_levels(m, &level, 1, &n, &present));
    EXPECT(!present && n == 0, "no order in the meta");
    CHECK(weida_close(m));
}

/* A streamed job ordering an application level, FINAL_ONLY. */
static void streamed_job(weida_pusher_t pusher, weida_puller_t puller) {
    const uint64_t app = APP_LEVEL;
    weida_ostream_t out;
    CHECK(weida_pusher_open_reporting(pusher, &app, 1, WEIDA_FINAL_ONLY, &out));
    weida_cursors_t cursors, again = 1;
    CHECK(weida_ostream_cursors(out, &cursors));
    CHECK(weida_ostream_cursors(out, &again));
    EXPECT(cursors != 0 && again == 0, "the stream's cursors handed out once");
    static char piece[16 * 1024];
    memset(piece, 's', sizeof piece);
    for (int i = 0; i < 4; i++) {
        CHECK(weida_ostream_write(out, piece, sizeof piece));
    }
    CHECK(weida_ostream_finish(out));
    CHECK(weida_close(out));

    weida_istream_t in;
    CHECK(weida_puller_recv_stream(puller, &in));
    weida_reporter_t reporter, second = 1;
    CHECK(weida_istream_reporter(in, &reporter));
    CHECK(weida_istream_reporter(in, &second));
    EXPECT(reporter != 0 && second == 0, "the stream's reporter handed out once");
    int mode = -1;
    CHECK(weida_reporter_mode(reporter, &mode));
    EXPECT(mode == WEIDA_FINAL_ONLY, "FINAL_ONLY, got %d", mode);
    static char got[sizeof piece];
    uint64_t total = 0;
    size_t n = 0;
    int rc;
    while ((rc = weida_istream_read(in, got, sizeof got, &n)) == WEIDA_OK) {
        total += n;
        CHECK(weida_reporter_report(reporter, APP_LEVEL, total)); /* kept until finish */
    }
    EXPECT_CODE(rc, WEIDA_END);
    EXPECT(total == 4 * sizeof piece, "the whole stream, got %llu", (unsigned long long)total);
    CHECK(weida_close(in));
    /* Closing an unfinished reporter finishes it: the one record goes out. */
    CHECK(weida_close(reporter));

    while ((rc = changed_by_callback(cursors)) == WEIDA_OK) {
    }
    EXPECT_CODE(rc, WEIDA_END);
    EXPECT(offset_of(cursors, APP_LEVEL) == total, "the application level at %llu, got %llu",
           (unsigned long long)total, (unsigned long long)offset_of(cursors, APP_LEVEL));
    CHECK(weida_close(cursors));
}

int main(void) {
    /* A puller bound at /jobs, a pusher dialled to it (see example.h). */
    example_pushpull_t jobs = example_pushpull_open("/jobs");

    whole_job(jobs.pusher, jobs.puller);
    bad_and_empty_orders(jobs.pusher, jobs.puller);
    streamed_job(jobs.pusher, jobs.puller);

    example_pushpull_close(jobs);
    puts("cursors: ok");
    return 0;
}
