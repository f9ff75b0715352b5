"""A queue served by the ``weida broker`` CLI, consumed by a Subscriber
(BROKER.md §1, §6, §9, §11): credit, settlement by reporting PROCESSED,
the broker's ACCEPTED certificate and the consumer's PROCESSED relayed to
the producer, the confirm's ``achieved`` and redelivery's
``delivery_attempt``.

The broker is a subprocess: ``WEIDA_CLI`` names the binary, which
tests/python/run.sh builds before Go leaves PATH. Each test gets a broker of
its own, so no test sees another's messages.
"""

import os
import selectors
import subprocess

import weida
import weida.sync
from support import MIB, BoundedCase, by_address

START_SECONDS = 10.0


class Broker:
    """A running ``weida broker`` with one memory queue at /jobs."""

    def __init__(self, *args: str) -> None:
        cli = os.environ.get("WEIDA_CLI")
        if not cli or not os.access(cli, os.X_OK):
            raise AssertionError(f"WEIDA_CLI must name the weida CLI binary (tests/python/run.sh builds it); got {cli!r}")
        self.proc = subprocess.Popen([cli, "broker", "weida://127.0.0.1:0/jobs", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.url = self._address()

    def _address(self) -> str:
        """The first line the broker prints: its queue's dialling address."""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(START_SECONDS):
                self.stop()
                raise AssertionError(f"weida broker printed no address within {START_SECONDS} s")
        line = self.proc.stdout.readline().strip()
        if not line.startswith("weida://"):
            err = self.stop()
            raise AssertionError(f"weida broker printed {line!r}, not an address; stderr: {err}")
        return line

    def stop(self) -> str:
        """Stops the broker (SIGTERM: it retires its queue) and returns its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=START_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


class BrokerCase(BoundedCase):
    def setUp(self):
        super().setUp()
        self.broker = Broker()
        self.addCleanup(self.broker.stop)


async def consumer(url: str, credit: int = 0) -> weida.Subscriber:
    """An asyncio subscriber on the queue, every topic, with credit granted."""
    sub = weida.Runtime().subscriber(by_address())
    await sub.connect(url)
    await sub.subscribe("")
    if credit:
        await sub.grant(credit)
    return sub


async def settle(payload: bytes, reporter: weida.Reporter) -> None:
    await reporter.report(weida.PROCESSED, len(payload))
    await reporter.finish()


class AsyncQueue(BrokerCase):
    async def test_round_trip_settled_by_processed(self):
        pusher = weida.Runtime().pusher(by_address())
        await pusher.connect(self.broker.url)
        sub = await consumer(self.broker.url)
        self.assertEqual(sub.granted(), 0)
        await pusher.send(b"job-1")
        await sub.grant(1)
        await sub.grant(1)  # not above the standing grant: ignored
        self.assertEqual(sub.granted(), 1)

        payload, meta, reporter = await sub.recv_reporting(MIB)
        self.assertEqual(payload, b"job-1")
        self.assertIsInstance(reporter, weida.Reporter)
        self.assertIn(weida.PROCESSED, reporter.levels)
        self.assertEqual(meta.delivery_attempt, 1)  # first delivery: nothing written, reads as 1
        self.assertIsNone(meta.achieved)
        await settle(payload, reporter)

        # Settled: with credit for another, a second message is the next one.
        await pusher.send(b"job-2")
        await sub.grant(2)
        payload, meta, reporter = await sub.recv_reporting(MIB)
        self.assertEqual((payload, meta.delivery_attempt), (b"job-2", 1))
        await settle(payload, reporter)

    async def test_producer_sees_accepted_then_processed(self):
        pusher = weida.Runtime().pusher(by_address())
        await pusher.connect(self.broker.url)
        body = b"o" * 10_000
        cursors = await pusher.send(body, report=[weida.ACCEPTED, weida.PROCESSED])

        # The broker certifies admission itself, before any consumer exists.
        while (snapshot := await cursors.changed()) is not None and weida.ACCEPTED not in snapshot:
            pass
        self.assertEqual(cursors.snapshot(), {weida.ACCEPTED: len(body)})

        sub = await consumer(self.broker.url, credit=1)
        payload, _, reporter = await sub.recv_reporting(MIB)
        self.assertEqual(payload, body)
        await settle(payload, reporter)

        # The consumer's PROCESSED, relayed at the producer's own length.
        while (snapshot := await cursors.changed()) is not None and weida.PROCESSED not in snapshot:
            pass
        self.assertEqual(cursors.snapshot(), {weida.ACCEPTED: len(body), weida.PROCESSED: len(body)})
        while await cursors.changed() is not None:  # the report then ends
            pass

    async def test_request_confirm_carries_achieved(self):
        requester = weida.Runtime().requester(by_address())
        await requester.connect(self.broker.url)
        out, reply = await requester.open()
        await out.write(b"order")
        await out.finish()
        stream, meta = await reply.recv()
        self.assertEqual(meta.achieved, weida.ACCEPTED)  # a memory queue's certificate
        self.assertEqual(await stream.collect(MIB), b"")  # the confirm has no body

        sub = await consumer(self.broker.url, credit=1)
        payload, _, reporter = await sub.recv_reporting(MIB)
        self.assertEqual(payload, b"order")
        await settle(payload, reporter)

    async def test_given_back_comes_again_as_attempt_two(self):
        pusher = weida.Runtime().pusher(by_address())
        await pusher.connect(self.broker.url)
        sub = await consumer(self.broker.url, credit=2)
        await pusher.send(b"flaky")
        payload, meta, reporter = await sub.recv_reporting(MIB)
        self.assertEqual((payload, meta.delivery_attempt), (b"flaky", 1))
        await reporter.report(weida.PROCESSED, 0)  # nothing processed: give it back
        await reporter.finish()

        payload, meta, reporter = await sub.recv_reporting(MIB)
        self.assertEqual((payload, meta.delivery_attempt), (b"flaky", 2))
        await settle(payload, reporter)

    async def test_grant_refuses_what_is_not_a_count(self):
        sub = await consumer(self.broker.url)
        with self.assertRaises(ValueError):
            await sub.grant(-1)
        with self.assertRaises(TypeError):
            await sub.grant(1.5)
        await sub.grant(2**70)  # above 2**64-1: every message
        self.assertEqual(sub.granted(), 2**64 - 1)
        sub.close()
        with self.assertRaises(weida.RuntimeFailure):
            await sub.grant(1)


class SyncQueue(BrokerCase):
    def test_unsettled_delivery_comes_again_after_its_consumer_closes(self):
        pusher = weida.sync.Runtime().pusher(by_address())
        pusher.connect(self.broker.url)
        first = weida.sync.Runtime().subscriber(by_address())
        first.connect(self.broker.url)
        first.subscribe("")
        first.grant(1)
        cursors = pusher.send(b"unsettled", report=[weida.PROCESSED])
        payload, meta, reporter = first.recv_reporting(MIB)
        self.assertEqual((payload, meta.delivery_attempt), (b"unsettled", 1))
        # Gone without a word: the broker requeues what this connection held.
        reporter.close()
        first.close()

        second = weida.sync.Runtime().subscriber(by_address())
        second.connect(self.broker.url)
        second.subscribe("")
        second.grant(1)
        self.assertEqual(second.granted(), 1)
        payload, meta, reporter = second.recv_reporting(MIB)
        self.assertEqual((payload, meta.delivery_attempt), (b"unsettled", 2))
        reporter.report(weida.PROCESSED, len(payload))
        reporter.finish()

        # Settled for good (the producer sees the relayed PROCESSED, so the
        # broker has it): the broker retires with nothing held.
        while (snapshot := cursors.changed(10.0)) is not None and weida.PROCESSED not in snapshot:
            pass
        self.assertEqual(cursors.snapshot(), {weida.PROCESSED: len(payload)})
        self.assertIn("0 held undelivered", self.broker.stop())


if __name__ == "__main__":
    import unittest

    unittest.main()


class KnownKeysOnly(BoundedCase):
    """A broker that admits only listed client keys (``--clients FILE``,
    anonymous clients refused): a producer presenting a listed identity is
    served; one presenting none, or an unlisted one, never connects."""

    async def test_only_a_listed_identity_is_served(self):
        import tempfile
        listed, stranger = weida.Identity.generate(), weida.Identity.generate()
        with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as keys:
            keys.write(listed.fingerprint() + "\n")
        self.addCleanup(os.unlink, keys.name)
        # On loopback anonymous clients are admitted unless the rules say not.
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as conf:
            conf.write('{"access": {"anonymous": false}}')
        self.addCleanup(os.unlink, conf.name)
        broker = Broker("--clients", keys.name, "--config", conf.name)
        self.addCleanup(broker.stop)
        pusher = weida.Runtime().pusher(by_address(), identity=listed)
        await pusher.connect(broker.url)
        await pusher.send(b"from a listed key")
        sub = weida.Runtime().subscriber(by_address(), identity=listed)
        await sub.connect(broker.url)
        await sub.subscribe("")
        await sub.grant(1)
        payload, meta, reporter = await sub.recv_reporting(MIB)
        self.assertEqual(payload, b"from a listed key")
        await settle(payload, reporter)
        for who in (None, stranger):
            with self.subTest(identity=who):
                with self.assertRaises(weida.WeidaError):
                    await weida.Runtime().requester(by_address(), identity=who).connect(broker.url)
