"""RADIO/DISH on both surfaces over QUIC: segments and datagram segments
reach a dish that joined, with their topic and number; an oversize datagram
is counted, never sent as a stream; bad terms are refused before anything
is sent."""

import asyncio

import weida
import weida.sync
from support import MIB, BoundedCase, by_address, until, until_sync


async def radio_and_dish(case, datagrams=True, path="/cam", **terms):
    """(radio, dish) joined to "cam.#" with terms, on runtimes with datagram
    flows; the binding is kept on the test case (dropping it unbinds)."""
    server = weida.Runtime(datagrams=datagrams)
    binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
    radio = binding.radio(path)
    dish = weida.Runtime(datagrams=datagrams).dish(by_address())
    await dish.connect(binding.url(path))
    await dish.join("cam.#", **terms)
    await until(lambda: radio.dish_count() == 1, "the radio to apply the join")
    case.binding = binding
    return radio, dish


def radio_and_dish_sync(case):
    server = weida.sync.Runtime(datagrams=True)
    binding = server.bind("127.0.0.1:0", weida.Identity.generate())
    radio = binding.radio("/cam")
    dish = weida.sync.Runtime(datagrams=True).dish(by_address())
    dish.connect(binding.url("/cam"))
    dish.join("cam.#", max_age=5.0, max_layer=3)
    until_sync(lambda: radio.dish_count() == 1, "the radio to apply the join")
    case.binding = binding
    return radio, dish


class AsyncRadio(BoundedCase):
    async def test_segment_arrives_whole_with_its_topic_number_and_layer(self):
        radio, dish = await radio_and_dish(self)
        segment = radio.segment("cam.front", max_age=5.0, priority=1)
        self.assertEqual(segment.write(b"key"), 1)
        self.assertEqual(segment.write(bytearray(b"frame")), 1)
        self.assertEqual(segment.finish(), 1)
        with self.assertRaises(weida.NoReply):
            segment.finish()
        kind, payload, meta = await dish.recv(MIB)
        self.assertEqual((kind, payload), ("segment", b"keyframe"))
        self.assertEqual((meta.topic, meta.segment, meta.layer), ("cam.front", 0, 0))
        # Numbers are per topic and go up from 0.
        second = radio.segment("cam.front")
        second.write(b"next")
        second.finish()
        _, payload, meta = await dish.recv(MIB)
        self.assertEqual((payload, meta.segment), (b"next", 1))

    async def test_datagram_arrives_as_its_own_kind(self):
        radio, dish = await radio_and_dish(self)
        self.assertEqual(radio.datagram("cam.audio", b"beep"), 1)
        self.assertEqual(await dish.recv(MIB), ("datagram", "cam.audio", 0, b"beep"))

    async def test_oversize_datagram_is_counted_for_the_dish_never_streamed(self):
        radio, dish = await radio_and_dish(self)
        self.assertEqual(radio.datagram("cam.audio", bytes(4000)), 0)
        (drops,) = radio.dish_drops()
        self.assertIsInstance(drops, weida.DishDrops)
        self.assertEqual((drops.too_large, drops.no_datagrams, drops.superseded), (1, 0, 0))
        self.assertEqual(drops.no_parked, 0)  # only a unix dish parks a reverse connection
        self.assertIsNone(drops.peer)  # an anonymous dish, told apart by its address
        self.assertTrue(drops.addr)
        self.assertEqual(radio.dropped(), 1)
        self.assertEqual(radio.path(), "/cam")

    async def test_a_dish_without_datagrams_loses_them_counted(self):
        radio, _ = await radio_and_dish(self, datagrams=False)
        self.assertEqual(radio.datagram("cam.audio", b"beep"), 0)
        (drops,) = radio.dish_drops()
        self.assertEqual(drops.no_datagrams, 1)

    async def test_layers_above_the_dish_cap_are_never_sent(self):
        radio, dish = await radio_and_dish(self, max_layer=0)
        segment = radio.segment("cam.front")
        self.assertEqual(segment.write_layer(1, b"enhancement"), 0)
        self.assertEqual(segment.write(b"base"), 1)
        segment.finish_layer(0)
        with self.assertRaises(weida.NoReply):
            segment.write(b"more")
        segment.finish()
        kind, payload, meta = await dish.recv(MIB)
        self.assertEqual((kind, payload, meta.layer), ("segment", b"base", 0))

    async def test_bad_terms_are_refused_before_anything_is_sent(self):
        radio, dish = await radio_and_dish(self)
        with self.assertRaises(weida.LimitExceeded):
            await dish.join("cam.#", max_layer=16)
        with self.assertRaises(weida.Protocol):
            await dish.join("a#")
        with self.assertRaises(ValueError):
            await dish.join("cam.#", max_layer=-1)
        with self.assertRaises(weida.RuntimeFailure):
            await dish.join("cam.#", max_age=-1.0)
        with self.assertRaises(ValueError):
            radio.segment("cam.front", priority=2**15)
        segment = radio.segment("cam.front")
        with self.assertRaises(weida.LimitExceeded):
            segment.write_layer(16, b"x")
        with self.assertRaises(TypeError):
            segment.write("text")
        with self.assertRaises(TypeError):
            radio.datagram("cam.audio", "text")

    async def test_ceiling_discards_and_the_dish_goes_on(self):
        radio, dish = await radio_and_dish(self)
        radio.datagram("cam.audio", b"twelve bytes")
        with self.assertRaises(weida.LimitExceeded):
            await dish.recv(4)
        radio.datagram("cam.audio", b"ok")
        self.assertEqual(await dish.recv(4), ("datagram", "cam.audio", 1, b"ok"))

    async def test_leave_and_close_wake_a_waiting_recv(self):
        radio, dish = await radio_and_dish(self)
        await dish.leave("cam.#")
        await dish.leave("never.joined")  # not an error
        await until(lambda: radio.dish_count() == 0, "the radio to drop the join")
        self.assertEqual(dish.peer_count(), 1)
        waiting = asyncio.ensure_future(dish.recv(MIB))
        await asyncio.sleep(0)  # one turn: the task issues its receive
        dish.close()
        with self.assertRaises(weida.Canceled):
            await waiting


class SyncRadio(BoundedCase):
    def test_segment_and_datagram_on_threads(self):
        radio, dish = radio_and_dish_sync(self)
        self.assertIsInstance(radio, weida.sync.Radio)
        segment = radio.segment("cam.front")
        self.assertIsInstance(segment, weida.sync.Segment)
        segment.write_layer(0, b"base")
        segment.write_layer(1, b"detail")
        self.assertEqual(segment.finish(), 1)
        got = {}
        for _ in range(2):
            kind, payload, meta = dish.recv(MIB)
            self.assertEqual((kind, meta.topic, meta.segment), ("segment", "cam.front", 0))
            got[meta.layer] = payload
        self.assertEqual(got, {0: b"base", 1: b"detail"})
        self.assertEqual(radio.datagram("cam.audio", b"beep"), 1)
        self.assertEqual(dish.recv(MIB), ("datagram", "cam.audio", 0, b"beep"))
        self.assertEqual(dish.peer_count(), 1)
        dish.leave("cam.#")

    def test_datagrams_off_is_the_default(self):
        server = weida.sync.Runtime()
        binding = server.bind("127.0.0.1:0", weida.Identity.generate())
        radio = binding.radio("/cam")
        dish = weida.sync.Runtime().dish(by_address())
        dish.connect(binding.url("/cam"))
        dish.join("")
        until_sync(lambda: radio.dish_count() == 1, "the join")
        self.assertEqual(radio.datagram("x", b"beep"), 0)
        (drops,) = radio.dish_drops()
        self.assertEqual((drops.no_datagrams, drops.no_parked), (1, 0))
        with self.assertRaises(weida.AlreadyRegistered):
            binding.radio("/cam")


class Values(BoundedCase):
    def test_too_large_and_datagrams_unavailable_map_by_code(self):
        from weida._errors import BY_CODE

        self.assertIs(BY_CODE[20], weida.DatagramsUnavailable)
        self.assertIs(BY_CODE[21], weida.TooLarge)
        self.assertIsNone(weida.TooLarge("x").max)
