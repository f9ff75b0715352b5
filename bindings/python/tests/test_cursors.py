"""Completion reports (cursors) on both surfaces: a sender orders levels,
the receiver reports through its Reporter, the sender's Cursors show how
far the payload got (SURFACE.md §2.2–2.5, §4.4 test_cursors)."""

import asyncio

import weida
import weida.sync
from support import MIB, BoundedCase, background, by_address, served, served_sync

APP_LEVEL = weida.APPLICATION_FLOOR + 3


async def push_pair(path: str):
    """(pusher, puller, binding) connected over QUIC; the caller keeps the
    binding, since dropping it stops serving its socket."""
    _, binding, client = await served()
    puller = binding.puller(path)
    pusher = client.pusher(by_address())
    await pusher.connect(binding.url(path))
    return pusher, puller, binding


async def watch_until(cursors, level: int, offset: int) -> dict:
    """Reads changes until level reaches offset; fails if the report ends first."""
    while (snapshot := await cursors.changed()) is not None:
        if snapshot.get(level) == offset:
            return snapshot
    raise AssertionError(f"the report ended before level {level} reached {offset}: {cursors.snapshot()}")


class Constants(BoundedCase):
    def test_levels_and_modes(self):
        named = (weida.TRANSPORT_RECEIPT, weida.ACCEPTED, weida.STORED, weida.REPLICATED, weida.PROCESSED)
        self.assertEqual(named, (1, 2, 3, 4, 5))
        self.assertEqual(weida.APPLICATION_FLOOR, 16)
        self.assertEqual((weida.PROGRESS, weida.FINAL_ONLY), (0, 1))
        for name in ("Cursors", "Reporter"):
            self.assertIn(name, weida.__all__)
            self.assertIn(name, weida.sync.__all__)


class AsyncCursors(BoundedCase):
    async def test_processed_verdict_for_a_push_without_an_exchange(self):
        pusher, puller, _binding = await push_pair("/jobs")
        body = b"j" * 100_000
        cursors = await pusher.send(body, report=[weida.PROCESSED])
        self.assertIsInstance(cursors, weida.Cursors)
        self.assertEqual(cursors.snapshot(), {})
        self.assertIsNone(cursors.offset(weida.PROCESSED))

        payload, meta, reporter = await puller.recv_reporting(MIB)
        self.assertEqual(payload, body)
        self.assertEqual((meta.report, meta.report_mode), ([weida.PROCESSED], weida.PROGRESS))
        self.assertIsNotNone(meta.report_id)
        self.assertEqual((reporter.levels, reporter.mode), ([weida.PROCESSED], weida.PROGRESS))
        await reporter.report(weida.PROCESSED, len(payload))
        await reporter.finish()

        self.assertEqual(await watch_until(cursors, weida.PROCESSED, len(body)), {weida.PROCESSED: len(body)})
        self.assertEqual(cursors.offset(weida.PROCESSED), len(body))
        while await cursors.changed() is not None:
            pass  # the reporter finished: the report ends
        self.assertIsNone(await cursors.changed())

    async def test_application_level_is_carried_and_final_only_reports_once(self):
        pusher, puller, _binding = await push_pair("/app")
        cursors = await pusher.send(b"abc", report=[APP_LEVEL, weida.ACCEPTED, APP_LEVEL], mode=weida.FINAL_ONLY)
        _, meta, reporter = await puller.recv_reporting(MIB)
        self.assertEqual(meta.report, [weida.ACCEPTED, APP_LEVEL])  # sorted, de-duplicated
        self.assertEqual(reporter.mode, weida.FINAL_ONLY)
        await reporter.report(weida.ACCEPTED, 3)
        await reporter.report(APP_LEVEL, 1)
        await reporter.report(APP_LEVEL, 3)
        await reporter.report(99, 3)  # not ordered: ignored, not refused
        await reporter.finish()
        last = None
        while (snapshot := await cursors.changed()) is not None:
            last = snapshot
        self.assertEqual(last, {weida.ACCEPTED: 3, APP_LEVEL: 3})

    async def test_reserved_level_and_unknown_mode_are_protocol(self):
        pusher, _, _binding = await push_pair("/bad")
        with self.assertRaises(weida.Protocol):
            await pusher.send(b"x", report=[7])
        with self.assertRaises(weida.Protocol):
            await pusher.send(b"x", report=[weida.PROCESSED], mode=9)
        with self.assertRaises(weida.Protocol):
            await pusher.send(b"x", report=[-1])
        with self.assertRaises(weida.Protocol):
            await pusher.send(b"x", report=list(range(weida.APPLICATION_FLOOR, weida.APPLICATION_FLOOR + 17)))
        with self.assertRaises(TypeError):
            await pusher.send(b"x", report=weida.PROCESSED)  # a list of levels, not one
        with self.assertRaises(TypeError):
            await pusher.send(b"x", report=["5"])

    async def test_no_order_means_no_handles(self):
        pusher, puller, _binding = await push_pair("/plain")
        self.assertIsNone(await pusher.send(b"plain"))
        self.assertIsNone(await pusher.send(b"empty order", report=[]))
        arrived = set()
        for _ in range(2):  # two streams: their arrival order is not guaranteed
            payload, meta, reporter = await puller.recv_reporting(MIB)
            arrived.add(payload)
            self.assertIsNone(reporter)
            self.assertEqual((meta.report, meta.report_mode, meta.report_id), ([], None, None))
        self.assertEqual(arrived, {b"plain", b"empty order"})

    async def test_streamed_transfer_orders_a_report(self):
        pusher, puller, _binding = await push_pair("/stream")
        out = await pusher.open(report=[weida.PROCESSED])
        cursors = await out.cursors()
        self.assertIsInstance(cursors, weida.Cursors)
        self.assertIsNone(await out.cursors())  # handed out once
        for _ in range(4):
            await out.write(b"s" * 16384)
        await out.finish()

        incoming, meta = await puller.recv_stream()
        self.assertEqual(meta.report, [weida.PROCESSED])
        reporter = await incoming.reporter()
        self.assertIsNone(await incoming.reporter())  # handed out once
        total = 0
        while piece := await incoming.read(16384):
            total += len(piece)
            await reporter.report(weida.PROCESSED, total)
        await reporter.finish()
        self.assertEqual(await watch_until(cursors, weida.PROCESSED, 4 * 16384), {weida.PROCESSED: 4 * 16384})

    async def test_a_plain_stream_has_no_cursors_and_no_reporter(self):
        pusher, puller, _binding = await push_pair("/plainstream")
        out = await pusher.open()
        await out.write(b"abc")
        await out.finish()
        self.assertIsNone(await out.cursors())
        incoming, _ = await puller.recv_stream()
        self.assertIsNone(await incoming.reporter())

    async def test_a_bounded_wait_leaves_the_report_going(self):
        pusher, puller, _binding = await push_pair("/wait")
        cursors = await pusher.send(b"job", report=[weida.PROCESSED])
        with self.assertRaises(asyncio.TimeoutError):
            await asyncio.wait_for(cursors.changed(), 0.05)
        _, _, reporter = await puller.recv_reporting(MIB)
        await reporter.report(weida.PROCESSED, 3)
        await reporter.finish()
        self.assertEqual(await watch_until(cursors, weida.PROCESSED, 3), {weida.PROCESSED: 3})

    async def test_a_finished_reporter_is_spent(self):
        pusher, puller, _binding = await push_pair("/spent")
        await pusher.send(b"job", report=[weida.PROCESSED])
        _, _, reporter = await puller.recv_reporting(MIB)
        await reporter.finish()
        with self.assertRaises(weida.NoReply):
            await reporter.finish()
        with self.assertRaises(weida.NoReply):
            await reporter.report(weida.PROCESSED, 3)

    async def test_pair_orders_a_report_from_the_other_end(self):
        _, binding, client = await served()
        bound = binding.pair("/pair")
        dialling = client.pair(by_address())
        await dialling.connect(binding.url("/pair"))
        cursors = await dialling.send(b"hello", report=[weida.ACCEPTED])
        payload, meta, reporter = await bound.recv_reporting(MIB)
        self.assertEqual((payload, meta.report), (b"hello", [weida.ACCEPTED]))
        await reporter.report(weida.ACCEPTED, len(payload))
        await reporter.finish()
        self.assertEqual(await watch_until(cursors, weida.ACCEPTED, 5), {weida.ACCEPTED: 5})


class SyncCursors(BoundedCase):
    def test_synchronous_sender_with_final_only(self):
        _, binding, client = served_sync()
        puller = binding.puller("/sync")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/sync"))
        cursors = pusher.send(b"x" * 1000, report=[weida.PROCESSED], mode=weida.FINAL_ONLY)
        self.assertIsInstance(cursors, weida.sync.Cursors)
        with self.assertRaises(TimeoutError):
            cursors.changed(0.05)  # nothing reported yet; the report goes on

        def handle():
            payload, meta, reporter = puller.recv_reporting(MIB)
            reporter.report(weida.PROCESSED, len(payload))
            reporter.finish()

        background(handle).join()
        last = None
        while (snapshot := cursors.changed(10.0)) is not None:
            last = snapshot
        self.assertEqual(last, {weida.PROCESSED: 1000})
        self.assertEqual(cursors.offset(weida.PROCESSED), 1000)
        with self.assertRaises(weida.RuntimeFailure):
            cursors.changed(-1.0)  # a sync deadline is mandatory and not negative

    def test_sync_meta_and_refusals(self):
        _, binding, client = served_sync()
        puller = binding.puller("/syncmeta")
        pusher = client.pusher(by_address())
        pusher.connect(binding.url("/syncmeta"))
        self.assertIsNone(pusher.send(b"plain"))
        payload, meta, reporter = puller.recv_reporting(MIB)
        self.assertEqual((payload, meta.report, reporter), (b"plain", [], None))
        with self.assertRaises(weida.Protocol):
            pusher.send(b"x", report=[7])
        with self.assertRaises(weida.Protocol):
            pusher.send(b"x", report=[weida.PROCESSED], mode=9)
        pusher.send(b"ordered", report=[APP_LEVEL])
        _, meta, reporter = puller.recv_reporting(MIB)
        self.assertIsInstance(reporter, weida.sync.Reporter)
        self.assertEqual((meta.report, reporter.levels, reporter.mode), ([APP_LEVEL], [APP_LEVEL], weida.PROGRESS))
        reporter.finish()
        with self.assertRaises(weida.NoReply):
            reporter.report(APP_LEVEL, 1)

    def test_sync_pair(self):
        _, binding, client = served_sync()
        bound = binding.pair("/syncpair")
        dialling = client.pair(by_address())
        dialling.connect(binding.url("/syncpair"))
        cursors = dialling.send(b"hi", report=[weida.PROCESSED])
        payload, _, reporter = bound.recv_reporting(MIB)
        reporter.report(weida.PROCESSED, len(payload))
        reporter.finish()
        while (snapshot := cursors.changed(10.0)) is not None and snapshot.get(weida.PROCESSED) != 2:
            pass
        self.assertEqual(cursors.snapshot(), {weida.PROCESSED: 2})
