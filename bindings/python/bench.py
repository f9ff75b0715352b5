"""bench.py — the Python figures beside Go's BenchmarkExchange1KiB and
BenchmarkPush64B (core/bench_test.go): both ends in one process over QUIC
on loopback, one connection established before the clock starts.

    python bench.py [--n N] [--server thread|process] [--weida PATH]

  reqrep-1KiB    one 1 KiB request and its 1 KiB echo, one after another:
                 median, p99 and mean round trip (µs); asyncio also with 64
                 requests in flight (requests/s)
  push-64B       64-byte messages, each send returned before the next, the
                 clock stopped once the puller has read them all (msgs/s,
                 and the median and p99 of one send); asyncio also with 64
                 sends in flight

The echo server and the draining puller are weida.sync threads in every
case, so the surfaces differ only on the measured (client) side. With
--server process they are instead two `weida serve` processes (--echo and
--sink; the Go CLI, `go build -o /tmp/weida ./cmd/weida`, named by --weida
or WEIDA_CLI): the client then shares neither the GIL nor the library's
threads with the server, and the figures are the binding's alone.

Besides its human-readable lines it prints one JSON line per surface and
workload, the form tests/bench (build/bench.sh) reads beside the Node
binding's:

    {"surface": "python-sync"|"python-asyncio", "workload": "reqrep_1k"|"push_64b",
     "median_us": ..., "p99_us": ..., "msgs_per_s": ...}

(for push_64b, median_us and p99_us are one send's time, as bench.js
times them: a client's own cost per message even when the server, not the
client, sets the pace).
"""

import argparse
import asyncio
import json
import math
import os
import statistics
import subprocess
import threading
import time

import weida
import weida.sync

KIB = 1 << 10
WINDOW = 64


def serve(n_requests: int, milestones: list):
    """An echo replier and a draining puller on threads; returns their URLs
    and, per milestone, an event set once the puller has read that many
    messages in all."""
    runtime = weida.sync.Runtime()
    binding = runtime.bind("127.0.0.1:0", weida.Identity.generate())
    replier, puller = binding.replier("/echo"), binding.puller("/sink")
    drained = [threading.Event() for _ in milestones]

    def echo():
        for _ in range(n_requests):
            request = replier.accept(KIB)
            request.reply(request.payload)

    def drain():
        read = 0
        for milestone, event in zip(milestones, drained):
            for _ in range(milestone - read):
                puller.recv(KIB)
            read = milestone
            event.set()

    threading.Thread(target=echo, daemon=True).start()
    threading.Thread(target=drain, daemon=True).start()
    return (runtime, binding, replier, puller), binding.url("/echo"), binding.url("/sink"), drained


def serve_process(weida_cli: str, milestones: list):
    """serve()'s twin with `weida serve --echo` and `--sink` processes. The
    sink writes every payload to its stdout; counting those bytes tells when
    the puller has read so many 64-byte messages."""
    def start(role: str, path: str) -> subprocess.Popen:
        proc = subprocess.Popen([weida_cli, "serve", role, f"weida://127.0.0.1:0{path}"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs.append(proc)
        return proc

    procs: list = []
    echo, sink = start("--echo", "/echo"), start("--sink", "/sink")
    echo_url = echo.stdout.readline().decode().strip()
    sink_url = sink.stdout.readline().decode().strip()
    drained = [threading.Event() for _ in milestones]

    def count() -> None:
        read, fd = 0, sink.stdout.fileno()
        for milestone, event in zip(milestones, drained):
            while read < milestone * 64:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return
                read += len(chunk)
            event.set()

    threading.Thread(target=count, daemon=True).start()
    return procs, echo_url, sink_url, drained


def servers(args, n_requests: int, milestones: list):
    """The echo and sink the run's --server names."""
    if args.server == "process":
        return serve_process(args.weida, milestones)
    return serve(n_requests, milestones)


def stop(keep) -> None:
    """Ends `weida serve` processes (a thread server ends with the process)."""
    if isinstance(keep, list):
        for proc in keep:
            proc.terminate()
            proc.wait()


def figures(surface: str, workload: str, median_us=None, p99_us=None, msgs_per_s=None) -> None:
    """One JSON line for tests/bench."""
    line = {"surface": surface, "workload": workload, "median_us": median_us, "p99_us": p99_us, "msgs_per_s": msgs_per_s}
    print(json.dumps(line), flush=True)


def p99(values: list) -> float:
    """The nearest-rank 99th percentile, as tests/bench computes Go's."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def report(surface: str, name: str, rtts: list) -> None:
    median, tail = statistics.median(rtts) * 1e6, p99(rtts) * 1e6
    print(f"{name:28s} median {median:8.1f} µs   p99 {tail:8.1f} µs   "
          f"mean {statistics.mean(rtts) * 1e6:8.1f} µs")
    figures(surface, "reqrep_1k", median_us=median, p99_us=tail, msgs_per_s=len(rtts) / sum(rtts))


def rate(name: str, n: int, seconds: float, unit: str = "msg") -> None:
    print(f"{name:28s} {n / seconds:10.0f} {unit}s/s  ({seconds / n * 1e6:.1f} µs/{unit})")


def pushed(surface: str, name: str, sends: list, seconds: float) -> None:
    """The figures of n timed sends that were all read seconds after the first began."""
    n = len(sends)
    rate(name, n, seconds)
    figures(surface, "push_64b", median_us=statistics.median(sends) * 1e6, p99_us=p99(sends) * 1e6,
            msgs_per_s=n / seconds)


def bench_sync(args, n: int) -> None:
    keep, echo_url, sink_url, (drained,) = servers(args, n + 1, [n + 1])
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
    report("python-sync", "sync reqrep-1KiB", rtts)

    pusher = client.pusher(weida.Trust.by_address())
    pusher.connect(sink_url)
    pusher.send(b"w" * 64)
    small = bytes(64)
    sends = []
    start = time.perf_counter()
    for _ in range(n):
        began = time.perf_counter()
        pusher.send(small)
        sends.append(time.perf_counter() - began)
    drained.wait()
    pushed("python-sync", "sync push-64B", sends, time.perf_counter() - start)
    stop(keep)


async def bench_asyncio(args, n: int) -> None:
    windowed = n // WINDOW * WINDOW
    keep, echo_url, sink_url, (sequential_drained, drained) = servers(args, n + 1 + windowed, [1 + n, 1 + n + windowed])
    loop = asyncio.get_running_loop()
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
    report("python-asyncio", "asyncio reqrep-1KiB", rtts)
    start = time.perf_counter()
    for _ in range(n // WINDOW):
        await asyncio.gather(*(requester.request(body, KIB) for _ in range(WINDOW)))
    if windowed:  # with requests in flight, one wake-up drains many outcomes
        rate(f"asyncio reqrep-1KiB x{WINDOW}", windowed, time.perf_counter() - start, unit="request")

    pusher = client.pusher(weida.Trust.by_address())
    await pusher.connect(sink_url)
    await pusher.send(bytes(64))
    small = bytes(64)
    sends = []
    start = time.perf_counter()
    for _ in range(n):
        began = time.perf_counter()
        await pusher.send(small)
        sends.append(time.perf_counter() - began)
    await loop.run_in_executor(None, sequential_drained.wait)
    pushed("python-asyncio", "asyncio push-64B", sends, time.perf_counter() - start)
    start = time.perf_counter()
    for _ in range(n // WINDOW):
        await asyncio.gather(*(pusher.send(small) for _ in range(WINDOW)))
    await loop.run_in_executor(None, drained.wait)
    if windowed:  # a run shorter than one window has no windowed figure
        rate(f"asyncio push-64B x{WINDOW}", windowed, time.perf_counter() - start)
    stop(keep)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000, help="operations per figure")
    ap.add_argument("--server", choices=("thread", "process"), default="thread",
                    help="echo and sink as weida.sync threads here, or as `weida serve` processes")
    ap.add_argument("--weida", default=os.environ.get("WEIDA_CLI", "weida"),
                    help="the weida CLI for --server process (default: $WEIDA_CLI, else weida on PATH)")
    args = ap.parse_args()
    n = args.n
    if n < 1:
        ap.error(f"--n must be at least 1, got {n}")
    print(f"server: {args.server}")
    bench_sync(args, n)
    asyncio.run(bench_asyncio(args, n))


if __name__ == "__main__":
    main()
