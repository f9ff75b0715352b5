"""No deadlock under concurrency: 16 threads on weida.sync, 1000 concurrent
asyncio requests."""

import asyncio
import threading

import weida
from weida import _loop
from support import MIB, BoundedCase, background, by_address, served, served_sync, until

THREADS = 16
PER_THREAD = 25
CONCURRENT = 1000


class Threads(BoundedCase):
    def test_sixteen_threads_on_weida_sync(self):
        _, binding, client = served_sync()
        replier = binding.replier("/echo")
        puller = binding.puller("/sink")

        def serve():
            while True:
                try:
                    request = replier.accept(MIB)
                except weida.Canceled:
                    return
                request.reply(request.payload)

        def drain():
            for _ in range(THREADS * PER_THREAD // 2):
                puller.recv(MIB)

        for _ in range(4):
            background(serve)
        draining = background(drain)
        errors, answers = [], []

        def work(n):
            try:
                if n % 2:  # half ask, half push: both directions at once
                    requester = client.requester(by_address())
                    requester.connect(binding.url("/echo"))
                    for i in range(PER_THREAD):
                        answers.append(requester.request(b"%d/%d" % (n, i), MIB) == b"%d/%d" % (n, i))
                else:
                    pusher = client.pusher(by_address())
                    pusher.connect(binding.url("/sink"))
                    for i in range(PER_THREAD):
                        pusher.send(b"%d/%d" % (n, i))
            except BaseException as e:  # reported below, on the test's thread
                errors.append(e)

        workers = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        draining.join()
        self.assertEqual(errors, [])
        self.assertEqual(answers, [True] * (THREADS // 2 * PER_THREAD))
        replier.close()  # wakes the serving threads


class Coroutines(BoundedCase):
    async def test_a_thousand_concurrent_requests(self):
        _, binding, client = await served()
        replier = binding.replier("/echo")

        async def serve():
            while True:
                request = await replier.accept(MIB)
                asyncio.ensure_future(request.reply(request.payload))

        serving = asyncio.ensure_future(serve())
        requester = client.requester(by_address())
        await requester.connect(binding.url("/echo"))
        asks = [b"%d" % i for i in range(CONCURRENT)]
        answers = await asyncio.gather(*(requester.request(a, MIB) for a in asks))
        self.assertEqual(answers, asks)
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await until(lambda: _loop.pending_count() == 0, "the canceled accept's callback")
