/*
 * misuse.c — bad input through the C ABI returns a code, never a crash:
 * zero, closed, forged and wrong-role handles; NULL pointers; short
 * buffers; bad options, struct sizes and deadlines; meta asked wrongly;
 * report orders, cursors and reporters given bad input.
 * (lifecycle.c covers callbacks, cancellation and close semantics.)
 */
#include "testkit.h"

#include <math.h>

static void library_facts(void) {
    EXPECT(weida_abi_version() == WEIDA_ABI_VERSION, "ABI %u", weida_abi_version());
    EXPECT(weida_wire_version() == 0, "wire version 0");
    EXPECT(strcmp(weida_alpn(), "weida/0") == 0, "ALPN %s", weida_alpn());
    EXPECT(strlen(weida_version()) > 0, "a version");
    EXPECT(strncmp(weida_strerror(WEIDA_EREJECTED), "WEIDA_EREJECTED:", 16) == 0, "%s",
           weida_strerror(WEIDA_EREJECTED));
    EXPECT(strncmp(weida_strerror(WEIDA_ETRUNCATED), "WEIDA_ETRUNCATED:", 17) == 0, "%s",
           weida_strerror(WEIDA_ETRUNCATED));
    EXPECT(weida_strerror(-5) != NULL && weida_strerror(99999) != NULL, "never NULL");
}

static void bad_handles(world_t *w) {
    weida_msg_t m;
    size_t n;
    /* zero */
    EXPECT_CODE(weida_puller_recv(0, 64, &m), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_close(0), WEIDA_EBADHANDLE);
    /* forged */
    EXPECT_CODE(weida_close(0xdeadbeefcafef00dULL), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_requester_peer_count(0x0000000700000001ULL, &n), WEIDA_EBADHANDLE);
    /* wrong role: a trust is not a puller, a binding is not a runtime */
    EXPECT_CODE(weida_puller_recv(w->trust, 64, &m), WEIDA_EBADHANDLE);
    weida_requester_t r;
    EXPECT_CODE(weida_runtime_requester(w->binding, w->trust, NULL, &r), WEIDA_EBADHANDLE);
    char why[256];
    CHECK(weida_last_error(why, sizeof why, NULL));
    EXPECT(strstr(why, "binding") != NULL && strstr(why, "runtime") != NULL, "names both roles: %s", why);
    /* closed, then closed again */
    weida_trust_t t;
    CHECK(weida_trust_by_address(&t));
    CHECK(weida_close(t));
    EXPECT_CODE(weida_close(t), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_runtime_pusher(w->rt, t, NULL, &r), WEIDA_EBADHANDLE);
    /* an async call on a bad handle starts nothing: its callback never runs */
    done_t d;
    done_init(&d);
    EXPECT_CODE(weida_puller_recv_async(t, 64, on_done, &d, NULL), WEIDA_EBADHANDLE);
    EXPECT(d.fired == 0, "no callback for a refused start");
}

static void bad_pointers(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/ptr", &p));
    EXPECT_CODE(weida_puller_recv(p, 64, NULL), WEIDA_EINVAL);
    weida_puller_t none = 1;
    EXPECT_CODE(weida_binding_puller(w->binding, NULL, &none), WEIDA_EINVAL);
    EXPECT(none == 0, "a failed call leaves 0 in its out-handle, not a stale value");
    EXPECT_CODE(weida_runtime_new(NULL, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_puller_recv_async(p, 64, NULL, NULL, NULL), WEIDA_EINVAL);
    weida_pusher_t push = pusher_to(w, "/ptr");
    EXPECT_CODE(weida_pusher_send(push, NULL, 5), WEIDA_EINVAL);
    CHECK(weida_pusher_send(push, NULL, 0)); /* an empty payload is fine */
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    const void *data = NULL;
    size_t len = 9;
    CHECK(weida_msg_data(m, &data, &len));
    EXPECT(data != NULL && len == 0, "an empty payload has a valid pointer and length 0");
    EXPECT_CODE(weida_msg_data(m, NULL, &len), WEIDA_EINVAL);
    CHECK(weida_close(m));
    EXPECT_CODE(weida_pusher_connect(push, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_trust_pin("sha256:nothex", &m), WEIDA_EINVALID_FINGERPRINT);
    EXPECT_CODE(weida_identity_generate_for(NULL, 2, &m), WEIDA_EINVAL);
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

static void short_buffers(world_t *w) {
    char small[8];
    size_t needed = 0;
    text_t full = example_url(w->binding, "/x");
    EXPECT_CODE(weida_binding_url(w->binding, "/x", small, sizeof small, &needed), WEIDA_ETRUNCATED);
    EXPECT(needed == strlen(full.s) + 1, "needed %zu, want %zu", needed, strlen(full.s) + 1);
    EXPECT(small[7] == '\0' && strncmp(small, full.s, 7) == 0, "cut and terminated: %s", small);
    EXPECT_CODE(weida_binding_url(w->binding, "/x", NULL, 0, &needed), WEIDA_ETRUNCATED);
    EXPECT(needed == strlen(full.s) + 1, "size query");
    EXPECT_CODE(weida_binding_url(w->binding, "/x", NULL, 10, &needed), WEIDA_EINVAL);
    /* the last error survives being read through a short buffer */
    weida_msg_t m;
    EXPECT_CODE(weida_puller_recv(0, 1, &m), WEIDA_EBADHANDLE);
    char tiny[4];
    EXPECT_CODE(weida_last_error(tiny, sizeof tiny, &needed), WEIDA_ETRUNCATED);
    char whole[256];
    CHECK(weida_last_error(whole, sizeof whole, NULL));
    EXPECT(needed == strlen(whole) + 1 && strncmp(whole, tiny, 3) == 0, "needed %zu for %s", needed, whole);
}

static void bad_options_and_deadlines(world_t *w) {
    weida_runtime_t rt;
    weida_runtime_opts_t o = {0};
    EXPECT_CODE(weida_runtime_new(&o, &rt), WEIDA_EINVAL); /* size unset */
    o.size = sizeof o;
    o.datagrams = 2; /* a flag is 0 or 1 */
    EXPECT_CODE(weida_runtime_new(&o, &rt), WEIDA_EINVAL);
    o.datagrams = 1;
    o.path_report = 2;
    EXPECT_CODE(weida_runtime_new(&o, &rt), WEIDA_EINVAL);
    o.path_report = 0;
    /* a newer caller's struct: larger, with its unknown tail zero, is fine */
    struct {
        weida_runtime_opts_t known;
        uint64_t future;
    } newer = {{.size = sizeof newer, .endpoint_queue = 8}, 0};
    CHECK(weida_runtime_new(&newer.known, &rt));
    CHECK(weida_close(rt));
    newer.future = 1;
    EXPECT_CODE(weida_runtime_new(&newer.known, &rt), WEIDA_EINVAL);
    /* an older caller's struct: only the size field, every default */
    size_t only_size = sizeof only_size;
    CHECK(weida_runtime_new((const weida_runtime_opts_t *)&only_size, &rt));
    uint64_t d, o2;
    EXPECT_CODE(weida_runtime_drain(rt, -1.0, &d, &o2), WEIDA_EINVAL);
    EXPECT_CODE(weida_runtime_drain(rt, NAN, &d, &o2), WEIDA_EINVAL);
    EXPECT_CODE(weida_runtime_drain(rt, INFINITY, &d, &o2), WEIDA_EINVAL);
    CHECK(weida_close(rt));
    weida_surveyor_t s;
    weida_survey_t sv;
    CHECK(weida_runtime_surveyor(w->rt, w->trust, NULL, &s));
    EXPECT_CODE(weida_surveyor_survey(s, "q", 1, -0.5, 8, &sv), WEIDA_EINVAL);
    CHECK(weida_surveyor_survey(s, "q", 1, 0.01, 8, &sv)); /* nobody to ask: empty, not an error */
    weida_survey_counts_t c = {.size = sizeof c};
    CHECK(weida_survey_counts(sv, &c));
    EXPECT(c.asked == 0 && c.replies == 0, "an empty survey");
    weida_survey_counts_t unsized = {0};
    EXPECT_CODE(weida_survey_counts(sv, &unsized), WEIDA_EINVAL);
    CHECK(weida_close(sv));
    CHECK(weida_close(s));
    weida_bind_opts_t bo = {.size = sizeof bo, .client_auth = 7};
    weida_binding_t b;
    EXPECT_CODE(weida_bind_quic(w->rt, "127.0.0.1:0", w->id, &bo, &b), WEIDA_EINVAL);
}

static void meta_fields(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/meta", &p));
    weida_pusher_t push = pusher_to(w, "/meta");
    CHECK(weida_pusher_send(push, "abc", 3));
    weida_msg_t m;
    CHECK(weida_puller_recv(p, 64, &m));
    uint64_t v;
    int present;
    text_t t;
    EXPECT_CODE(weida_meta_uint(m, WEIDA_META_TOPIC, &v, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_text(m, WEIDA_META_CONTENT_LEN, t.s, sizeof t.s, NULL, &present), WEIDA_EINVAL);
    /* No ordering guarantee was agreed: the number is absent, not refused. */
    CHECK(weida_meta_uint(m, WEIDA_META_SEQUENCE, &v, &present));
    EXPECT(!present, "no sequence without an ordering guarantee");
    /* Only a dish's message has a segment number and layer. */
    CHECK(weida_meta_uint(m, WEIDA_META_SEGMENT, &v, &present));
    EXPECT(!present && v == 0, "a push has no segment number");
    uint64_t levels[2];
    size_t n;
    EXPECT_CODE(weida_meta_report_levels(m, levels, 2, NULL, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_report_levels(m, NULL, 2, &n, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_uint(m, 999, &v, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_meta_uint(w->trust, WEIDA_META_CONTENT_LEN, &v, &present), WEIDA_EBADHANDLE);
    t = example_meta(m, WEIDA_META_TOPIC);
    EXPECT(!t.present, "a push carries no topic");
    CHECK(weida_close(m));
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

/* RADIO/DISH options and arrays: what the ABI cannot read is EINVAL, what
 * the library judges keeps its own code; roles are checked as everywhere. */
static void radio_misuse(world_t *w) {
    weida_radio_t r;
    weida_dish_t d;
    weida_segment_t seg;
    CHECK(weida_binding_radio(w->binding, "/radio", &r));
    CHECK(weida_runtime_dish(w->rt, w->trust, NULL, &d));
    weida_radio_t twice;
    EXPECT_CODE(weida_binding_radio(w->binding, "/radio", &twice), WEIDA_EALREADY_REGISTERED);
    weida_segment_opts_t so = {.size = sizeof so, .priority = 40000};
    EXPECT_CODE(weida_radio_segment(r, "t", &so, &seg), WEIDA_EINVAL);
    EXPECT(seg == 0, "a refused segment leaves no handle");
    so = (weida_segment_opts_t){.size = sizeof so, .follows_upstream = 2};
    EXPECT_CODE(weida_radio_segment(r, "t", &so, &seg), WEIDA_EINVAL);
    weida_join_opts_t jo = {.size = sizeof jo, .max_layer = 3}; /* a cap without cap_layers */
    EXPECT_CODE(weida_dish_join(d, "t", &jo), WEIDA_EINVAL);
    jo = (weida_join_opts_t){.size = sizeof jo, .cap_layers = 1, .max_layer = 16};
    EXPECT_CODE(weida_dish_join(d, "t", &jo), WEIDA_ELIMIT);
    EXPECT_CODE(weida_dish_join(d, "a#", NULL), WEIDA_EPROTOCOL);
    EXPECT_CODE(weida_dish_join(d, NULL, NULL), WEIDA_EINVAL);
    size_t n = 7, reached;
    weida_dish_drops_t drops[1] = {{.size = 0}};
    EXPECT_CODE(weida_radio_dish_drops(r, drops, 1, &n), WEIDA_EINVAL); /* size unset */
    EXPECT_CODE(weida_radio_dish_drops(r, NULL, 1, &n), WEIDA_EINVAL);
    CHECK(weida_radio_dish_drops(r, NULL, 0, &n));
    EXPECT(n == 0, "no dish joined, got %zu", n);
    EXPECT_CODE(weida_radio_datagram(r, "t", NULL, 1, &reached), WEIDA_EINVAL);
    EXPECT_CODE(weida_radio_datagram((weida_radio_t)d, "t", "x", 1, &reached), WEIDA_EBADHANDLE);
    CHECK(weida_radio_segment(r, "t", NULL, &seg));
    EXPECT_CODE(weida_segment_write_layer(seg, 16, "x", 1, &reached), WEIDA_ELIMIT);
    EXPECT_CODE(weida_segment_finish_layer(seg, 99), WEIDA_ELIMIT);
    CHECK(weida_segment_finish_layer(seg, 0));
    EXPECT_CODE(weida_segment_write(seg, "x", 1, &reached), WEIDA_ENOREPLY);
    uint64_t number = 9;
    CHECK(weida_segment_number(seg, &number));
    EXPECT(number == 0, "the first segment of a topic is 0, got %llu", (unsigned long long)number);
    EXPECT_CODE(weida_dish_recv(d, 1, NULL, NULL), WEIDA_EINVAL);
    CHECK(weida_close(seg));
    CHECK(weida_close(d));
    CHECK(weida_close(r));
}

/* Cursors and reporters refuse bad input like every other handle. */
static void cursor_misuse(world_t *w) {
    weida_puller_t p;
    CHECK(weida_binding_puller(w->binding, "/orders", &p));
    weida_pusher_t push = pusher_to(w, "/orders");
    const uint64_t processed = WEIDA_PROCESSED;
    weida_cursors_t c = 1;
    EXPECT_CODE(weida_pusher_send_reporting(push, "x", 1, NULL, 1, WEIDA_PROGRESS, &c), WEIDA_EINVAL);
    EXPECT(c == 0, "no cursors after a refusal");
    EXPECT_CODE(weida_pusher_send_reporting(push, "x", 1, &processed, 1, WEIDA_PROGRESS, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_pusher_open_reporting(push, NULL, 2, WEIDA_PROGRESS, &c), WEIDA_EINVAL);
    CHECK(weida_pusher_send_reporting(push, "x", 1, &processed, 1, WEIDA_PROGRESS, &c));

    /* deadlines: NaN and +inf are refused; negative means none */
    EXPECT_CODE(weida_cursors_changed(c, NAN), WEIDA_EINVAL);
    EXPECT_CODE(weida_cursors_changed(c, INFINITY), WEIDA_EINVAL);
    /* outputs */
    uint64_t off = 9, levels[2], offsets[2];
    int present = 9;
    size_t n = 9;
    CHECK(weida_cursors_offset(c, 42, &off, &present));
    EXPECT(present == 0 && off == 0, "an unordered level is absent");
    EXPECT_CODE(weida_cursors_offset(c, WEIDA_PROCESSED, NULL, &present), WEIDA_EINVAL);
    EXPECT_CODE(weida_cursors_snapshot(c, levels, offsets, 2, NULL), WEIDA_EINVAL);
    EXPECT_CODE(weida_cursors_snapshot(c, levels, NULL, 2, &n), WEIDA_EINVAL);
    CHECK(weida_cursors_snapshot(c, NULL, NULL, 0, &n));
    EXPECT(n == 0, "nothing reported yet, got %zu", n);
    /* wrong roles both ways */
    weida_reporter_t r;
    weida_msg_t m;
    CHECK(weida_puller_recv_reporting(p, 64, &m, &r));
    EXPECT_CODE(weida_cursors_changed(r, 0.0), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_reporter_report(c, WEIDA_PROCESSED, 1), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_reporter_finish(m), WEIDA_EBADHANDLE);
    EXPECT_CODE(weida_meta_report_levels(r, levels, 2, &n, &present), WEIDA_EBADHANDLE);
    /* a reporter's limits and outputs */
    EXPECT_CODE(weida_reporter_report(r, WEIDA_PROCESSED, (1ULL << 62)), WEIDA_EPROTOCOL);
    CHECK(weida_reporter_report(r, 99, 1)); /* a level nobody ordered is ignored */
    EXPECT_CODE(weida_reporter_levels(r, NULL, 0, &n), WEIDA_ETRUNCATED);
    EXPECT(n == 1, "one level ordered, got %zu", n);
    EXPECT_CODE(weida_reporter_mode(r, NULL), WEIDA_EINVAL);
    CHECK(weida_reporter_finish(r));
    EXPECT_CODE(weida_reporter_report(r, WEIDA_PROCESSED, 1), WEIDA_ENOREPLY);
    CHECK(weida_close(r));
    EXPECT_CODE(weida_reporter_finish(r), WEIDA_EBADHANDLE);
    CHECK(weida_close(m));
    CHECK(weida_close(c));
    EXPECT_CODE(weida_cursors_changed(c, 1.0), WEIDA_EBADHANDLE);
    CHECK(weida_close(push));
    CHECK(weida_close(p));
}

int main(void) {
    library_facts();
    world_t w = world_new();
    bad_handles(&w);
    bad_pointers(&w);
    short_buffers(&w);
    bad_options_and_deadlines(&w);
    meta_fields(&w);
    radio_misuse(&w);
    cursor_misuse(&w);
    world_close(&w);
    example_no_leaks();
    puts("misuse: ok");
    return 0;
}
