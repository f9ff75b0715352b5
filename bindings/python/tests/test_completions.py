"""The routes by which an _async outcome reaches its event loop (_loop):
the completion queue, the default, and the foreign-thread callback, the
fallback. Both must deliver the same values, failures and cancellations;
the queue must also serve several loops at once, each drain settling its
own loop's operations and handing on the others'."""

import asyncio
import contextlib
import ctypes
import gc
import os
import threading

import weida
from weida import _loop
from weida._boundary import out_count
from weida._ffi import lib
from support import BoundedCase, by_address, served, until

ROUTES = ("cq", "callback")


@contextlib.contextmanager
def route(name: str):
    saved = _loop.completion_route()
    if not _loop.set_completion_route(name):
        raise AssertionError(f"the {name} route is unavailable")
    try:
        yield
    finally:
        _loop.set_completion_route(saved)


def live_handles() -> int:
    return out_count(lib.weida_handles_live, kind=ctypes.c_uint64)


async def pipe(path: str):
    """(binding, puller, connected pusher) on a fresh served runtime; the
    caller keeps the binding, whose socket closes with it."""
    _, binding, client = await served()
    puller = binding.puller(path)
    pusher = client.pusher(by_address())
    await pusher.connect(binding.url(path))
    return binding, puller, pusher


class Routes(BoundedCase):
    def test_the_queue_is_the_default(self):
        if os.environ.get("WEIDA_PYTHON_COMPLETIONS") == "callback":
            self.skipTest("WEIDA_PYTHON_COMPLETIONS=callback chose the fallback")
        self.assertEqual(_loop.completion_route(), "cq")
        with self.assertRaises(ValueError):
            _loop.set_completion_route("poll")

    async def test_values_arrive_alike(self):
        for name in ROUTES:
            with self.subTest(route=name), route(name):
                binding, puller, pusher = await pipe("/values")
                receiving = asyncio.ensure_future(puller.recv(64))
                await pusher.send(b"over " + name.encode())
                payload, meta = await receiving
                self.assertEqual(payload, b"over " + name.encode())
                self.assertEqual(meta.endpoint, "/values")
                self.assertEqual(_loop.pending_count(), 0)

    async def test_failures_arrive_alike_each_with_its_sentence(self):
        for name in ROUTES:
            with self.subTest(route=name), route(name):
                _, binding, _ = await served()
                pullers = [binding.puller(f"/fail{i}") for i in range(5)]
                receiving = [asyncio.ensure_future(p.recv(64)) for p in pullers]
                await asyncio.sleep(0)  # every recv is in the library
                for p in pullers:  # five failures queued together: one batch each
                    p.close()
                for outcome in await asyncio.gather(*receiving, return_exceptions=True):
                    self.assertIsInstance(outcome, weida.Canceled)
                    self.assertTrue(str(outcome), "the failure's sentence travels with it")

    async def test_cancellation_works_alike_and_leaks_nothing(self):
        async def cancel_ten() -> tuple:
            binding, puller, pusher = await pipe("/cancel")
            gc.collect()
            before = live_handles()
            for i in range(10):  # a message may complete a recv being canceled
                receiving = asyncio.ensure_future(puller.recv(64))
                await asyncio.sleep(0)
                await pusher.send(b"%d" % i)
                receiving.cancel()
                await asyncio.gather(receiving, return_exceptions=True)
            await until(lambda: _loop.pending_count() == 0, "every outcome")
            gc.collect()
            return before, live_handles()

        for name in ROUTES:
            with self.subTest(route=name), route(name):
                before, after = await cancel_ten()  # one scope each: nothing of one counts in the other
                self.assertEqual(after, before)


class ClosingLoops(BoundedCase):
    async def test_a_canceled_operation_ends_before_its_task(self):
        # The task's CancelledError comes only once the outcome is in, so
        # a loop that closes right after (asyncio.run) leaves nothing.
        binding, puller, pusher = await pipe("/end")

        async def abandon() -> None:
            asyncio.ensure_future(puller.recv(64))
            await asyncio.sleep(0)

        before = _loop.pending_count()
        with route("cq"):  # the callback route settles it later, on a library thread
            await asyncio.get_running_loop().run_in_executor(None, asyncio.run, abandon())
        self.assertEqual(_loop.pending_count(), before)  # no waiting: it was settled on its own loop


class SeveralLoops(BoundedCase):
    def test_loops_on_threads_share_the_queue(self):
        # Every loop watches the one queue, so each drains the others'
        # outcomes too; each operation must still settle on its own loop.
        rounds, failures = 200, []

        def run(tag: bytes) -> None:
            async def body() -> None:
                binding, puller, pusher = await pipe("/" + tag.decode())
                own = threading.get_ident()
                for i in range(rounds):
                    receiving = asyncio.ensure_future(puller.recv(64))
                    await pusher.send(tag + b"%d" % i)
                    payload, _ = await receiving
                    if payload != tag + b"%d" % i or threading.get_ident() != own:
                        failures.append((tag, i, payload))

            try:
                asyncio.run(asyncio.wait_for(body(), 10))
            except BaseException as e:  # reported below, not lost on the thread
                failures.append((tag, repr(e)))

        threads = [threading.Thread(target=run, args=(b"loop%d-" % k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(_loop.pending_count(), 0)
