/*
 * radio.c — RADIO/DISH through the C ABI over QUIC: a radio sends one
 * stream segment and one datagram segment to a dish, each runtime with
 * datagram flows on (both ends need them).
 *
 * Claims: a segment written in two chunks arrives whole, with its topic,
 * number and layer in its meta; a datagram arrives as its own kind with its
 * topic and number (numbers are per topic, from 0); a datagram larger than
 * the connection's datagram size is lost for that dish and counted as
 * too_large in its drops, never sent as a stream; a second finish is
 * ENOREPLY and a layer above 15 is ELIMIT.
 */
#include "example.h"

static size_t dishes(weida_radio_t r) {
    size_t n = 0;
    CHECK(weida_radio_dish_count(r, &n));
    return n;
}

static uint64_t meta_number(weida_msg_t m, int field) {
    uint64_t v = 0;
    int present = 0;
    CHECK(weida_meta_uint(m, field, &v, &present));
    EXPECT(present, "meta field %d present", field);
    return v;
}

int main(void) {
    weida_runtime_t rt, rt_dish;
    weida_identity_t id;
    weida_binding_t binding;
    weida_radio_t radio;
    weida_trust_t by_address;
    weida_dish_t dish;
    weida_runtime_opts_t with_datagrams = {.size = sizeof with_datagrams, .datagrams = 1};

    CHECK(weida_runtime_new(&with_datagrams, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_binding_radio(binding, "/cam", &radio));

    CHECK(weida_trust_by_address(&by_address));
    text_t url = example_url(binding, "/cam");
    CHECK(weida_runtime_new(&with_datagrams, &rt_dish));
    CHECK(weida_runtime_dish(rt_dish, by_address, NULL, &dish));
    CHECK(weida_dish_connect(dish, url.s));
    weida_join_opts_t fresh = {.size = sizeof fresh, .max_age_ms = 5000};
    CHECK(weida_dish_join(dish, "front.#", &fresh));
    weida_join_opts_t too_many_layers = {.size = sizeof too_many_layers, .cap_layers = 1, .max_layer = 16};
    EXPECT_CODE(weida_dish_join(dish, "rear.#", &too_many_layers), WEIDA_ELIMIT);
    /* Join returns once the join is handed to the transport; the radio
     * applies it a moment later and announces nothing. */
    EXAMPLE_WAIT_UNTIL(dishes(radio) == 1);

    /* A stream segment, written in two chunks. */
    weida_segment_t seg;
    size_t reached = 0, alive = 0;
    CHECK(weida_radio_segment(radio, "front.video", NULL, &seg));
    CHECK(weida_segment_write(seg, "key", 3, &reached));
    EXPECT(reached == 1, "the dish took the chunk, got %zu", reached);
    CHECK(weida_segment_write(seg, "frame", 5, &reached));
    EXPECT_CODE(weida_segment_write_layer(seg, 16, "x", 1, &reached), WEIDA_ELIMIT);
    CHECK(weida_segment_finish(seg, &alive));
    EXPECT(alive == 1, "the copy is alive, got %zu", alive);
    EXPECT_CODE(weida_segment_finish(seg, &alive), WEIDA_ENOREPLY);
    CHECK(weida_close(seg));

    /* A datagram segment on another topic (a segment supersedes the older
     * ones of its own topic only). */
    CHECK(weida_radio_datagram(radio, "front.audio", "beep", 4, &reached));
    EXPECT(reached == 1, "the datagram went to the dish, got %zu", reached);

    /* They travel apart (a stream and a datagram), so either may come first. */
    int got_segment = 0, got_datagram = 0;
    for (int k = 0; k < 2; k++) {
        weida_msg_t m;
        int kind = 0;
        CHECK(weida_dish_recv(dish, 1 << 16, &m, &kind));
        text_t topic = example_meta(m, WEIDA_META_TOPIC);
        EXPECT(meta_number(m, WEIDA_META_SEGMENT) == 0, "the first segment of its topic is 0");
        EXPECT(meta_number(m, WEIDA_META_LAYER) == 0, "one layer: layer 0");
        if (kind == WEIDA_DISH_SEGMENT) {
            EXPECT(!got_segment && strcmp(topic.s, "front.video") == 0, "the segment once, got %s", topic.s);
            EXPECT(example_payload_is(m, "keyframe"), "the segment's two chunks, whole");
            got_segment = 1;
        } else {
            EXPECT(kind == WEIDA_DISH_DATAGRAM, "a known kind, got %d", kind);
            EXPECT(!got_datagram && strcmp(topic.s, "front.audio") == 0, "the datagram once, got %s", topic.s);
            EXPECT(example_payload_is(m, "beep"), "the datagram's payload");
            got_datagram = 1;
        }
        CHECK(weida_close(m));
    }

    /* Too large for one packet: lost for the dish and counted, never a stream. */
    static char big[4000];
    CHECK(weida_radio_datagram(radio, "front.audio", big, sizeof big, &reached));
    EXPECT(reached == 0, "an oversize datagram reaches nobody, got %zu", reached);
    weida_dish_drops_t drops[2] = {{.size = sizeof drops[0]}};
    size_t n = 0;
    CHECK(weida_radio_dish_drops(radio, drops, 2, &n));
    EXPECT(n == 1, "one dish, got %zu", n);
    EXPECT(drops[0].too_large == 1 && drops[0].no_datagrams == 0, "one too_large drop, got %llu",
           (unsigned long long)drops[0].too_large);
    EXPECT(drops[0].no_parked == 0, "a QUIC dish never needs a parked connection, got %llu",
           (unsigned long long)drops[0].no_parked);
    EXPECT(drops[0].peer[0] == '\0' && drops[0].addr[0] != '\0', "an anonymous dish, told apart by address");
    /* A program built before no_parked declares the smaller size: the
     * library lays its array out at that stride and writes nothing past it. */
    enum { OLD_SIZE = offsetof(weida_dish_drops_t, no_parked) };
    _Alignas(weida_dish_drops_t) unsigned char older[2 * OLD_SIZE];
    memset(older, 0xAB, sizeof older);
    memcpy(older, &(size_t){OLD_SIZE}, sizeof(size_t));
    CHECK(weida_radio_dish_drops(radio, (weida_dish_drops_t *)older, 1, &n));
    uint64_t older_too_large = 0;
    memcpy(&older_too_large, older + offsetof(weida_dish_drops_t, too_large), sizeof older_too_large);
    EXPECT(older_too_large == 1, "the older struct still gets its counts, got %llu",
           (unsigned long long)older_too_large);
    EXPECT(older[OLD_SIZE] == 0xAB && older[sizeof older - 1] == 0xAB, "nothing written past the older size");
    EXPECT_CODE(weida_radio_dish_drops(radio, NULL, 0, &n), WEIDA_ETRUNCATED);
    EXPECT(n == 1, "the count alone, got %zu", n);
    uint64_t dropped = 0;
    CHECK(weida_radio_dropped(radio, &dropped));
    EXPECT(dropped == 1, "one whole segment lost, got %llu", (unsigned long long)dropped);

    EXAMPLE_CLOSE_ALL(dish, radio, binding, by_address, id, rt_dish, rt);
    puts("radio: ok");
    return 0;
}
