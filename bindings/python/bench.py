"""bench.py — the Python figures beside Go's BenchmarkExchange1KiB and
BenchmarkPush64B (core/bench_test.go): both ends in one process over QUIC
on loopback, one connection established before the clock starts.

    python bench.py [--n N]

  reqrep-1KiB    one 1 KiB request and its 1 KiB echo, one after another:
                 median and mean round trip (µs)
  push-64B       64-byte messages, the clock stopped once the puller has
                 read them all (msgs/s); asyncio also with 64 sends in flight

The echo server and the draining puller are weida.sync threads in every
case, so the surfaces differ only on the measured (client) side.
"""

import argparse
import asyncio
import statistics
import threading
import time

import weida
import weida.sync

KIB = 1 << 10
WINDOW = 64


def serve(n_requests: int, n_messages: int):
    """An echo replier and a draining puller on threads; returns their URLs
    and an event set once the puller has read n_messages."""
    runtime = weida.sync.Runtime()
    binding = runtime.bind("127.0.0.1:0", weida.Identity.generate())
    replier, puller = binding.replier("/echo"), binding.puller("/sink")
    drained = threading.Event()

    def echo():
        for _ in range(n_requests):
            request = replier.accept(KIB)
            request.reply(request.payload)

    def drain():
        for _ in range(n_messages):
            puller.recv(KIB)
        drained.set()

    threading.Thread(target=echo, daemon=True).start()
    threading.Thread(target=drain, daemon=True).start()
    return (runtime, binding, replier, puller), binding.url("/echo"), binding.url("/sink"), drained


def report(name: str, rtts: list) -> None:
    print(f"{name:28s} median {statistics.median(rtts) * 1e6:8.1f} µs   mean {statistics.mean(rtts) * 1e6:8.1f} µs")


def rate(name: str, n: int, seconds: float) -> None:
    print(f"{name:28s} {n / seconds:10.0f} msgs/s  ({seconds / n * 1e6:.1f} µs/msg)")


def bench_sync(n: int) -> None:
    keep, echo_url, sink_url, drained = serve(n + 1, n + 1)
    client = weida.sync.Runtime()
    requester = client.requester(weida.Trust.by_address())
    requester.connect(echo_url)
    body = bytes(KIB)
    requester.request(body, KIB)  # warm
    rtts = []
    for _ in range(n):
        start = time.perf_counter()
        requester.request(body, KIB)
        rtts.append(time.perf_counter() - start)
    report("sync reqrep-1KiB", rtts)

    pusher = client.pusher(weida.Trust.by_address())
    pusher.connect(sink_url)
    pusher.send(b"w" * 64)
    small = bytes(64)
    start = time.perf_counter()
    for _ in range(n):
        pusher.send(small)
    drained.wait()
    rate("sync push-64B", n, time.perf_counter() - start)


async def bench_asyncio(n: int) -> None:
    keep, echo_url, sink_url, drained = serve(n + 1, 1 + n + n // WINDOW * WINDOW)
    client = weida.Runtime()
    requester = client.requester(weida.Trust.by_address())
    await requester.connect(echo_url)
    body = bytes(KIB)
    await requester.request(body, KIB)
    rtts = []
    for _ in range(n):
        start = time.perf_counter()
        await requester.request(body, KIB)
        rtts.append(time.perf_counter() - start)
    report("asyncio reqrep-1KiB", rtts)

    pusher = client.pusher(weida.Trust.by_address())
    await pusher.connect(sink_url)
    await pusher.send(bytes(64))
    small = bytes(64)
    start = time.perf_counter()
    for _ in range(n):
        await pusher.send(small)
    sequential = time.perf_counter() - start
    rate("asyncio push-64B", n, sequential)
    start = time.perf_counter()
    for _ in range(n // WINDOW):
        await asyncio.gather(*(pusher.send(small) for _ in range(WINDOW)))
    await asyncio.get_running_loop().run_in_executor(None, drained.wait)
    rate(f"asyncio push-64B x{WINDOW}", n // WINDOW * WINDOW, time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="operations per figure")
    n = ap.parse_args().n
    bench_sync(n)
    asyncio.run(bench_asyncio(n))


if __name__ == "__main__":
    main()
