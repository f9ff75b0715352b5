/*
 * cq.c — completion queues (weida_cq_*), the third callback form: outcomes
 * queued under their op handle and signalled on a descriptor; a failure
 * ends a batch with its sentence as the drainer's last error; cancellation
 * still works by op handle; the descriptor is readable exactly while
 * outcomes wait; a bad cq refuses the _async call; a direct weida_cq_post
 * is queued with op 0; misuse of the cq functions is refused; a send that
 * needs no waiting is finished on the caller's thread, its outcome queued
 * before the _async call returns; weida_pusher_try_send does it without a
 * queue.
 */
#include <poll.h>
#include "testkit.h"

/* Whether fd is readable now (no waiting). */
static int readable(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Waits until fd is readable (bounded: a lost signal fails, not hangs). */
static void await_readable(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    EXPECT(poll(&p, 1, 10000) == 1, "the cq descriptor became readable within 10 s");
}

/* Drains until want outcomes arrived, waiting on the descriptor between. */
static size_t drain_all(weida_cq_t cq, int fd, weida_completion_t *out, size_t want) {
    size_t got = 0;
    while (got < want) {
        size_t n;
        await_readable(fd);
        CHECK(weida_cq_drain(cq, out + got, want - got, &n));
        got += n;
    }
    return got;
}

static void outcomes_and_order(world_t *w, weida_cq_t cq, int fd) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/cq", &p));
    weida_op_t ops[3];
    for (int i = 0; i < 3; i++) {
        CHECK(weida_puller_recv_async(p, 64, weida_cq_post, (void *)(uintptr_t)cq, &ops[i]));
    }
    EXPECT(!readable(fd), "nothing is signalled before an outcome");
    weida_pusher_t push = pusher_to(w, "/cq");
    for (int i = 0; i < 3; i++) {
        CHECK(weida_pusher_send(push, "m", 1));
    }
    weida_completion_t c[3];
    drain_all(cq, fd, c, 3);
    for (int i = 0; i < 3; i++) {
        int mine = 0;
        for (int j = 0; j < 3; j++) {
            mine |= c[i].op == ops[j];
        }
        EXPECT(mine && c[i].code == WEIDA_OK && c[i].a != 0, "outcome %d names its op and carries a msg", i);
        CHECK(weida_close(c[i].a));
    }
    EXPECT(!readable(fd), "the descriptor clears once the queue is empty");
    size_t n = 99;
    CHECK(weida_cq_drain(cq, c, 3, &n));
    EXPECT(n == 0, "an empty queue drains nothing, got %zu", n);
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

static void failures_end_a_batch(world_t *w, weida_cq_t cq, int fd) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/cq-fail", &p));
    weida_op_t ops[2];
    CHECK(weida_puller_recv_async(p, 64, weida_cq_post, (void *)(uintptr_t)cq, &ops[0]));
    CHECK(weida_puller_recv_async(p, 64, weida_cq_post, (void *)(uintptr_t)cq, &ops[1]));
    CHECK(weida_op_cancel(ops[0]));
    CHECK(weida_close(p)); /* wakes the other with WEIDA_ECANCELED */
    weida_completion_t c[2];
    for (int i = 0; i < 2; i++) {
        size_t n;
        do {
            await_readable(fd);
            CHECK(weida_cq_drain(cq, &c[i], 2, &n)); /* room for two, but a failure ends the batch */
        } while (n == 0);
        EXPECT(n == 1, "a failed outcome ends its batch, got %zu", n);
        EXPECT(c[i].code == WEIDA_ECANCELED, "canceled, got %s", weida_strerror(c[i].code));
        text_t t;
        CHECK(weida_last_error(t.s, sizeof t.s, NULL));
        EXPECT(strlen(t.s) > 0, "the failure's sentence is the drainer's last error");
    }
    EXPECT((c[0].op == ops[0] && c[1].op == ops[1]) || (c[0].op == ops[1] && c[1].op == ops[0]),
           "each canceled op is reported once");
    EXPECT(!readable(fd), "the descriptor clears after the failures");
}

/* A small send on a live connection needs no waiting: its outcome is in
 * the queue when weida_pusher_send_async returns, no thread woken for it. */
static void sends_that_need_no_wait_finish_at_once(world_t *w, weida_cq_t cq, int fd) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/cq-now", &p));
    weida_pusher_t push = pusher_to(w, "/cq-now");
    for (int i = 0; i < 5; i++) {
        weida_op_t op;
        CHECK(weida_pusher_send_async(push, "now", 3, weida_cq_post, (void *)(uintptr_t)cq, &op));
        EXPECT(readable(fd), "send %d: the outcome is queued before the call returns", i);
        weida_completion_t c;
        size_t n;
        CHECK(weida_cq_drain(cq, &c, 1, &n));
        EXPECT(n == 1 && c.op == op && c.code == WEIDA_OK, "send %d: its own outcome, OK", i);
        weida_msg_t m;
        CHECK(weida_puller_recv(p, 64, &m));
        const void *data;
        size_t len;
        CHECK(weida_msg_data(m, &data, &len));
        EXPECT(len == 3 && memcmp(data, "now", 3) == 0, "send %d arrived whole", i);
        CHECK(weida_close(m));
    }
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

/* weida_pusher_try_send sends what needs no waiting at once and says so;
 * it refuses a NULL out-parameter and a stale handle. */
static void try_send_never_waits(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/try", &p));
    weida_pusher_t push = pusher_to(w, "/try");
    int sent = -1;
    CHECK(weida_pusher_try_send(push, "try", 3, &sent));
    EXPECT(sent == 1, "a small send on a live connection goes at once (sent=%d)", sent);
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    const void *data;
    size_t len;
    CHECK(weida_msg_data(m, &data, &len));
    EXPECT(len == 3 && memcmp(data, "try", 3) == 0, "the tried send arrived whole");
    CHECK(weida_close(m));
    EXPECT(weida_pusher_try_send(push, "x", 1, NULL) == WEIDA_EINVAL, "a NULL sent is refused");
    CHECK(weida_close(push));
    EXPECT(weida_pusher_try_send(push, "x", 1, &sent) == WEIDA_EBADHANDLE && sent == 0,
           "a closed pusher is a bad handle, nothing sent");
    CHECK(weida_close(p));
}

static void direct_posts_and_misuse(weida_cq_t cq, int fd) {
    weida_cq_post((void *)(uintptr_t)cq, WEIDA_OK, 7, 8);
    weida_completion_t c;
    size_t n;
    drain_all(cq, fd, &c, 1);
    EXPECT(c.op == 0 && c.code == WEIDA_OK && c.a == 7 && c.b == 8, "a direct post is queued with op 0");
    weida_cq_post(NULL, WEIDA_OK, 0, 0); /* a stale cq: ignored */
    EXPECT(!readable(fd), "a post to another cq does not signal this one");

    weida_puller_t none = 0;
    EXPECT_CODE(weida_puller_recv_async(none, 64, weida_cq_post, (void *)(uintptr_t)cq, NULL), WEIDA_EBADHANDLE);
    weida_runtime_t rt;
    CHECK(weida_runtime_new(NULL, &rt));
    weida_subscriber_t s;
    weida_trust_t tr;
    CHECK(weida_trust_by_address(&tr));
    CHECK(weida_runtime_subscriber(rt, tr, NULL, &s));
    EXPECT_CODE(weida_subscriber_subscribe_async(s, "t", weida_cq_post, (void *)(uintptr_t)tr, NULL),
                WEIDA_EBADHANDLE); /* a trust is not a cq: nothing starts */
    EXPECT_CODE(weida_cq_drain(cq, NULL, 1, &n), WEIDA_EINVAL);
    EXPECT_CODE(weida_cq_drain(cq, &c, 1, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_cq_drain(tr, &c, 1, &n), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_cq_fd(tr, &fd), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_cq_new(NULL), WEIDA_EINVAL);
    CHECK(weida_close(s));
    CHECK(weida_close(tr));
    CHECK(weida_close(rt));
}

int main(void) {
    weida_cq_t cq;
    int fd;
    CHECK(weida_cq_new(&cq));
    CHECK(weida_cq_fd(cq, &fd));
    EXPECT(fd >= 0 && !readable(fd), "a new cq's descriptor is valid and not readable");
    world_t w = world_new();
    outcomes_and_order(&w, cq, fd);
    failures_end_a_batch(&w, cq, fd);
    sends_that_need_no_wait_finish_at_once(&w, cq, fd);
    try_send_never_waits(&w);
    world_close(&w);
    direct_posts_and_misuse(cq, fd);
    CHECK(weida_close(cq));
    example_no_leaks();
    puts("cq: ok");
    return 0;
}
