"""The asyncio surface, after upstream's test_asyncio.py (SURFACE.md §4.4)."""

import asyncio
import ctypes
import gc
import math

import weida
from weida import _loop
from weida._boundary import out_count
from weida._ffi import lib
from support import MIB, BoundedCase, by_address, served, until


def live_handles():
    """Open handles in the whole library (weida_handles_live: the leak check)."""
    return out_count(lib.weida_handles_live, kind=ctypes.c_uint64)


async def echo_once(replier, ceiling=MIB):
    request = await replier.accept(ceiling)
    await request.reply(request.payload)
    return request


class RequestReply(BoundedCase):
    async def test_request_answered_over_quic(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"ping", MIB))
        request = await echo_once(replier)
        self.assertEqual(await asking, b"ping")
        self.assertEqual(request.payload, b"ping")
        self.assertEqual(request.meta.endpoint, "/echo")
        self.assertIsNone(request.meta.peer)  # an anonymous client proves no key
        self.assertEqual(replier.path(), "/echo")
        self.assertEqual(requester.peer_count(), 1)

    # Upstream's checklist: a whole-payload request states its length.
    async def test_request_meta_carries_content_len(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"ping", MIB))
        request = await echo_once(replier)
        await asking
        self.assertEqual(request.meta.content_len, 4)

    async def test_whole_payload_sends_state_their_length_streams_do_not(self):
        _, binding, client = await served()
        puller = binding.puller("/len")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/len"))
        await pusher.send(b"12345")
        self.assertEqual((await puller.recv(MIB))[1].content_len, 5)
        await pusher.send(b"123", report=[weida.PROCESSED])
        self.assertEqual((await puller.recv(MIB))[1].content_len, 3)
        out = await pusher.open()
        await out.write(b"streamed")
        await out.finish()
        _, meta = await puller.recv_stream()
        self.assertIsNone(meta.content_len)  # not known before the first byte
        bound, dialling = binding.pair("/lenpair"), client.pair(by_address())
        await dialling.connect(binding.url("/lenpair"))
        await dialling.send(b"ab")
        self.assertEqual((await bound.recv(MIB))[1].content_len, 2)

    async def test_payload_above_ceiling_is_limit_exceeded(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        # The reply is above the asker's ceiling: refused, LimitExceeded.
        asking = asyncio.ensure_future(requester.request(b"x", 4))
        request = await replier.accept(MIB)
        await request.reply(b"y" * 10)
        with self.assertRaises(weida.LimitExceeded) as caught:
            await asking
        self.assertIn("4 bytes", caught.exception.cause)
        # A request above the replier's ceiling is refused: the asker learns.
        with self.assertRaises(weida.Rejected):
            await asyncio.gather(requester.request(b"z" * 50, MIB), replier.accept(10))

    async def test_rejected_and_unknown_endpoint_are_distinct(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"x", 10))
        await (await replier.accept(10)).refuse()
        with self.assertRaises(weida.Rejected):
            await asking
        nowhere = client.requester(by_address())
        await nowhere.connect(binding.url("/nothing"))
        with self.assertRaises(weida.UnknownEndpoint) as caught:
            await nowhere.request(b"x", 10)
        self.assertNotIsInstance(caught.exception, weida.Rejected)

    async def test_wrong_key_is_untrusted_naming_the_key(self):
        _, binding, client = await served()
        real = binding.fingerprint()
        url = binding.url("/echo").replace(real, weida.Identity.generate().fingerprint())
        with self.assertRaises(weida.Untrusted) as caught:
            await client.requester(by_address()).connect(url)
        self.assertIn(real, caught.exception.cause)
        self.assertEqual(caught.exception.errno, "Untrusted")

    async def test_one_reply_only(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"once", 10))
        request = await echo_once(replier)
        with self.assertRaises(weida.NoReply):
            await request.reply(b"twice")
        self.assertEqual(request.payload, b"once")  # still readable after replying
        self.assertEqual(await asking, b"once")

    async def test_dropping_a_request_unanswered_sends_no_reply(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"x", 10))
        request = await replier.accept(10)
        del request
        gc.collect()
        with self.assertRaises(weida.NoReply):
            await asking


class PushPull(BoundedCase):
    async def test_push_reaches_puller_with_meta(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        await pusher.send(bytearray(b"work"))
        payload, meta = await puller.recv(MIB)
        self.assertEqual(payload, b"work")
        self.assertIsInstance(meta, weida.IncomingMeta)
        self.assertEqual(meta.endpoint, "/sink")
        self.assertIsNone(meta.peer)
        self.assertEqual(meta.report, [])
        self.assertEqual(pusher.peer_count(), 1)
        self.assertEqual(pusher.dropped(), 0)

    async def test_recv_above_ceiling_refuses_and_continues(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        await pusher.send(b"12345")
        with self.assertRaises(weida.LimitExceeded):
            await puller.recv(4)
        await pusher.send(b"ok")
        self.assertEqual((await puller.recv(4))[0], b"ok")

    async def test_send_that_needs_no_wait_finishes_without_suspending(self):
        # A small send on a live connection is done in the call itself: the
        # coroutine ends at its first step, no future awaited, no loop wake.
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        step = pusher.send(b"now")
        with self.assertRaises(StopIteration) as finished:
            step.send(None)
        self.assertIsNone(finished.exception.value)
        self.assertEqual((await puller.recv(MIB))[0], b"now")
        self.assertEqual(_loop.pending_count(), 0)


class Surface(BoundedCase):
    def test_module_surface(self):
        self.assertEqual(weida.VERSION, 0)
        self.assertIsInstance(weida.ALPN, bytes)
        self.assertEqual(weida.ALPN, b"weida/0")
        levels = (weida.TRANSPORT_RECEIPT, weida.ACCEPTED, weida.STORED, weida.REPLICATED, weida.PROCESSED)
        self.assertEqual(levels, (1, 2, 3, 4, 5))
        self.assertEqual((weida.APPLICATION_FLOOR, weida.PROGRESS, weida.FINAL_ONLY), (16, 0, 1))
        for name in weida.__all__:
            self.assertTrue(hasattr(weida, name), name)
        self.assertEqual(len(weida.__all__), len(set(weida.__all__)))
        self.assertFalse(issubclass(weida.Runtime, BaseException))

    async def test_drain_reports_delivered_and_outstanding(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        for i in range(3):
            await pusher.send(b"m%d" % i)
        receiving = asyncio.ensure_future(asyncio.gather(*(puller.recv(10) for _ in range(3))))
        delivered, outstanding = await client.drain(5.0)
        # Receipts that arrived before the drain began are not counted by
        # it, so "delivered" is timing-dependent; nothing may be left over.
        self.assertIsInstance(delivered, int)
        self.assertLessEqual(delivered, 3)
        self.assertEqual(outstanding, 0)
        self.assertEqual(len(await receiving), 3)
        with self.assertRaises(weida.RuntimeFailure):  # the C library's drain ends the runtime
            await client.drain(1.0)

    async def test_bad_deadlines_are_runtime_failure(self):
        _, binding, client = await served()
        fanout = binding.publisher("/news").open("t")
        surveyor = client.surveyor(by_address())
        for bad in (-1.0, math.inf, -math.inf, math.nan):
            with self.subTest(seconds=bad):
                with self.assertRaises(weida.RuntimeFailure):
                    await client.drain(bad)
                with self.assertRaises(weida.RuntimeFailure):
                    await fanout.write_within(b"x", bad)
                with self.assertRaises(weida.RuntimeFailure):
                    await surveyor.survey(b"q", bad, 10)

    async def test_str_is_a_type_error_everywhere(self):
        _, binding, client = await served()
        pusher = client.pusher(by_address())
        requester = client.requester(by_address())
        publisher = binding.publisher("/news")
        calls = (lambda: pusher.send("text"), lambda: requester.request("text", 10),
                 lambda: binding.publisher("/p2").open("t").write_now("text"))
        for make in calls:
            with self.assertRaises(TypeError):
                await make()
        with self.assertRaises(TypeError):
            publisher.publish("topic", "text")
        with self.assertRaises(TypeError):
            await pusher.send(memoryview(b"x"))
        self.assertEqual(_loop.pending_count(), 0)  # nothing was started

    async def test_work_starts_at_the_first_await(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        before = _loop.pending_count()
        never = pusher.send(b"never")
        receiving = puller.recv(10)
        self.assertEqual(_loop.pending_count(), before)
        never.close()
        await pusher.send(b"sent")
        self.assertEqual((await receiving)[0], b"sent")  # "never" never went


class Lifetimes(BoundedCase):
    async def test_objects_keep_their_runtime_alive(self):
        binding = await weida.Runtime().bind("127.0.0.1:0", weida.Identity.generate())
        replier = binding.replier("/echo")
        requester = weida.Runtime().requester(by_address())  # the Runtime object is gone at once
        gc.collect()
        await requester.connect(binding.url("/echo"))
        asking = asyncio.ensure_future(requester.request(b"alive", 10))
        await echo_once(replier)
        self.assertEqual(await asking, b"alive")

    async def test_pending_callbacks_survive_garbage_collection(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        receiving = [asyncio.ensure_future(puller.recv(10)) for _ in range(50)]
        await asyncio.sleep(0)  # every recv issued its C call
        gc.collect()
        for i in range(50):
            await pusher.send(b"%d" % i)
        got = sorted(int(p) for p, _ in await asyncio.gather(*receiving))
        self.assertEqual(got, list(range(50)))
        self.assertEqual(_loop.pending_count(), 0)

    async def test_closing_an_endpoint_wakes_its_calls_with_canceled(self):
        _, binding, _ = await served()
        puller = binding.puller("/sink")
        receiving = asyncio.ensure_future(puller.recv(10))
        await asyncio.sleep(0)
        puller.close()
        with self.assertRaises(weida.Canceled):
            await receiving
        with self.assertRaises(weida.RuntimeFailure):  # a closed handle says so
            await puller.recv(10)


class Cancellation(BoundedCase):
    async def test_wait_for_cancels_the_operation_not_the_endpoint(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        with self.assertRaises(asyncio.TimeoutError):
            await asyncio.wait_for(puller.recv(10), 0.05)
        await until(lambda: _loop.pending_count() == 0, "the canceled recv's callback")
        await pusher.send(b"after")
        self.assertEqual((await puller.recv(10))[0], b"after")  # the canceled recv took nothing

    async def test_canceled_read_resets_the_stream_and_the_sender_learns(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        stream = await pusher.open()
        await stream.write(b"first part")
        incoming, meta = await puller.recv_stream()
        self.assertEqual(meta.endpoint, "/sink")
        self.assertEqual(await incoming.read(100), b"first part")
        with self.assertRaises(asyncio.TimeoutError):
            await asyncio.wait_for(incoming.read(100), 0.05)  # the sender is silent
        with self.assertRaises((weida.Rejected, weida.Canceled)):
            for _ in range(1000):  # the refusal reaches the sender within a few writes
                await stream.write(bytes(64 << 10))
            await stream.finish()

    async def test_canceled_operations_leak_no_handles(self):
        _, binding, client = await served()
        puller = binding.puller("/sink")
        pusher = client.pusher(by_address())
        await pusher.connect(binding.url("/sink"))
        gc.collect()
        before = live_handles()
        for i in range(20):  # a message may complete a recv that is being canceled
            receiving = asyncio.ensure_future(puller.recv(10))
            await asyncio.sleep(0)
            await pusher.send(b"%d" % i)
            receiving.cancel()
            await asyncio.gather(receiving, return_exceptions=True)
        await until(lambda: _loop.pending_count() == 0, "every callback")
        gc.collect()
        self.assertEqual(live_handles(), before)

    async def test_a_closed_loop_is_a_silent_no_op(self):
        _, binding, _ = await served()
        puller = binding.puller("/sink")

        async def leave_pending():
            asyncio.ensure_future(puller.recv(10))
            await asyncio.sleep(0)

        await asyncio.get_running_loop().run_in_executor(None, asyncio.run, leave_pending())
        await until(lambda: _loop.pending_count() == 0, "the abandoned recv's callback")
