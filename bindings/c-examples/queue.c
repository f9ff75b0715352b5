/*
 * queue.c — a queue served by the broker (`weida broker`): a producer and a
 * consumer in one process, against the queue address given as argv[1].
 *
 *   weida broker weida://127.0.0.1:0/jobs      # prints the address to pass
 *   ./queue 'weida://sha256:…@127.0.0.1:PORT/jobs'
 *
 * Claims: a pushed job that orders ACCEPTED and PROCESSED sees ACCEPTED
 * (the broker's certificate) at the job's length while no consumer has
 * credit, so nothing is delivered; once the consumer grants credit it
 * receives the job (first attempt: no DELIVERY_ATTEMPT on the wire, read
 * as 1), reports PROCESSED at the length and finishes, and the producer
 * sees PROCESSED relayed at the length, then the report's end. A request
 * to the queue is confirmed with ACHIEVED = ACCEPTED on the reply. The
 * consumer gives that order back (PROCESSED at 0), and it comes again with
 * DELIVERY_ATTEMPT 2, received here with the callback form and settled.
 * Every message is settled at the end, so the queue is left empty.
 */
#include "example.h"

#define JOB "job-1: resize image 42"
#define ORDER "order-2: ship parcel 7"

/* A callback-form receive's outcome, handed from a library thread to main. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int done;
    int code;
    uint64_t msg;
    uint64_t reporter;
} received_t;

static void on_received(void *user, int code, uint64_t a, uint64_t b) {
    received_t *r = user;
    pthread_mutex_lock(&r->mu);
    r->code = code;
    r->msg = a;
    r->reporter = b;
    r->done = 1;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mu);
}

/* weida_subscriber_recv_reporting_async, waited for. */
static void recv_by_callback(weida_subscriber_t sub, weida_msg_t *m, weida_reporter_t *reporter) {
    received_t r = {.done = 0};
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cond, NULL);
    CHECK(weida_subscriber_recv_reporting_async(sub, 1024, on_received, &r, NULL));
    pthread_mutex_lock(&r.mu);
    while (!r.done) {
        pthread_cond_wait(&r.cond, &r.mu);
    }
    pthread_mutex_unlock(&r.mu);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cond);
    CHECK(r.code);
    *m = r.msg;
    *reporter = r.reporter;
}

/* A number meta field: its value, and whether the sender wrote it. */
static uint64_t meta_uint(weida_handle_t h, int field, int *present) {
    uint64_t value = 0;
    CHECK(weida_meta_uint(h, field, &value, present));
    return value;
}

/* The highest offset reported for level, or 0 when none was. */
static uint64_t offset_of(weida_cursors_t c, uint64_t level) {
    uint64_t offset = 0;
    int present = 0;
    CHECK(weida_cursors_offset(c, level, &offset, &present));
    return present ? offset : 0;
}

/* Waits for changes until level reaches offset; the report must not end first. */
static void await_level(weida_cursors_t c, uint64_t level, uint64_t offset) {
    int rc = WEIDA_OK;
    while (offset_of(c, level) < offset && (rc = weida_cursors_changed(c, 10.0)) == WEIDA_OK) {
    }
    EXPECT(offset_of(c, level) == offset, "level %llu at %llu, got %llu (last wait: %s)", (unsigned long long)level,
           (unsigned long long)offset, (unsigned long long)offset_of(c, level), weida_strerror(rc));
}

/* Settles a delivery: processed to its length, then the report's end. */
static void settle(weida_msg_t m, weida_reporter_t reporter) {
    const void *data;
    size_t len;
    CHECK(weida_msg_data(m, &data, &len));
    CHECK(weida_reporter_report(reporter, WEIDA_PROCESSED, len));
    CHECK(weida_reporter_finish(reporter));
    CHECK(weida_close(reporter));
    CHECK(weida_close(m));
}

/* The pushed job: ACCEPTED before any credit, PROCESSED once settled. */
static void pushed_job(weida_pusher_t pusher, weida_subscriber_t consumer) {
    const uint64_t order[] = {WEIDA_ACCEPTED, WEIDA_PROCESSED};
    const uint64_t len = strlen(JOB);
    weida_cursors_t cursors;
    CHECK(weida_pusher_send_reporting(pusher, JOB, len, order, 2, WEIDA_PROGRESS, &cursors));
    EXPECT(cursors != 0, "cursors for an order");

    /* The broker certifies admission on its own; no consumer was involved. */
    await_level(cursors, WEIDA_ACCEPTED, len);
    EXPECT(offset_of(cursors, WEIDA_PROCESSED) == 0, "nothing processed before any credit");

    uint64_t granted = 99;
    CHECK(weida_subscriber_granted(consumer, &granted));
    EXPECT(granted == 0, "credit starts at 0, got %llu", (unsigned long long)granted);
    CHECK(weida_subscriber_grant(consumer, 1));
    CHECK(weida_subscriber_grant(consumer, 1)); /* a repeat changes nothing */
    CHECK(weida_subscriber_granted(consumer, &granted));
    EXPECT(granted == 1, "the standing grant 1, got %llu", (unsigned long long)granted);

    weida_msg_t m;
    weida_reporter_t reporter;
    CHECK(weida_subscriber_recv_reporting(consumer, 1024, &m, &reporter));
    EXPECT(example_payload_is(m, JOB), "the job");
    EXPECT(reporter != 0, "a queue's delivery orders a report");
    int present = 1;
    uint64_t attempt = meta_uint(m, WEIDA_META_DELIVERY_ATTEMPT, &present);
    EXPECT(attempt == 1 && !present, "a first delivery reads as attempt 1, unwritten; got %llu (present %d)",
           (unsigned long long)attempt, present);
    uint64_t levels[16];
    size_t n = 0;
    CHECK(weida_reporter_levels(reporter, levels, 16, &n));
    EXPECT(n >= 1 && levels[0] == WEIDA_PROCESSED, "the delivery orders PROCESSED, got %zu levels", n);
    settle(m, reporter);

    /* The consumer's PROCESSED is relayed onto the producer's report. */
    await_level(cursors, WEIDA_PROCESSED, len);
    EXPECT(offset_of(cursors, WEIDA_ACCEPTED) == len, "ACCEPTED stays at the length");
    int rc;
    while ((rc = weida_cursors_changed(cursors, 10.0)) == WEIDA_OK) {
    }
    EXPECT_CODE(rc, WEIDA_END);
    CHECK(weida_close(cursors));
}

/* A request's confirm; the consumer gives the order back once. */
static void confirmed_order(weida_requester_t requester, weida_subscriber_t consumer) {
    weida_msg_t reply;
    CHECK(weida_requester_request(requester, ORDER, strlen(ORDER), 1024, &reply));
    int present = 0;
    uint64_t achieved = meta_uint(reply, WEIDA_META_ACHIEVED, &present);
    EXPECT(present && achieved == WEIDA_ACCEPTED, "the confirm ACHIEVED = ACCEPTED, got %llu (present %d)",
           (unsigned long long)achieved, present);
    CHECK(weida_close(reply));

    /* One received so far; two more: this delivery and its repeat. */
    CHECK(weida_subscriber_grant(consumer, 3));
    weida_msg_t m;
    weida_reporter_t reporter;
    CHECK(weida_subscriber_recv_reporting(consumer, 1024, &m, &reporter));
    EXPECT(example_payload_is(m, ORDER) && reporter != 0, "the order, with a reporter");
    CHECK(weida_reporter_report(reporter, WEIDA_PROCESSED, 0)); /* nothing processed: give it back */
    CHECK(weida_reporter_finish(reporter));
    CHECK(weida_close(reporter));
    CHECK(weida_close(m));

    recv_by_callback(consumer, &m, &reporter);
    EXPECT(example_payload_is(m, ORDER) && reporter != 0, "the order again, with a reporter");
    uint64_t attempt = meta_uint(m, WEIDA_META_DELIVERY_ATTEMPT, &present);
    EXPECT(present && attempt == 2, "the repeat is attempt 2, got %llu (present %d)", (unsigned long long)attempt,
           present);
    settle(m, reporter);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s QUEUE_ADDRESS  (as `weida broker` prints it)\n", argv[0]);
        return 2;
    }
    const char *queue = argv[1];
    weida_runtime_t rt;
    weida_trust_t by_address;
    weida_pusher_t pusher;
    weida_requester_t requester;
    weida_subscriber_t consumer;

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_trust_by_address(&by_address));
    CHECK(weida_runtime_pusher(rt, by_address, NULL, &pusher));
    CHECK(weida_runtime_requester(rt, by_address, NULL, &requester));
    CHECK(weida_runtime_subscriber(rt, by_address, NULL, &consumer));
    CHECK(weida_pusher_connect(pusher, queue));
    CHECK(weida_requester_connect(requester, queue));
    CHECK(weida_subscriber_connect(consumer, queue));
    CHECK(weida_subscriber_subscribe(consumer, "")); /* every topic, and none */

    pushed_job(pusher, consumer);
    confirmed_order(requester, consumer);

    CHECK(weida_close(consumer));
    CHECK(weida_close(requester));
    CHECK(weida_close(pusher));
    CHECK(weida_close(by_address));
    CHECK(weida_close(rt));
    example_no_leaks();
    puts("queue: ok");
    return 0;
}
