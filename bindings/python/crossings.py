"""crossings.py — what one trip across the Python/C/Go boundary costs, piece
by piece, so the round-trip figures of bench.py can be taken apart.

    python crossings.py [--n N]

  ctypes-c          a plain C function (libc getpid) through ctypes: the
                    ctypes marshalling and GIL release alone
  abi-noop          weida_abi_version: ctypes plus one C-to-Go (cgo) entry
  abi-lookup        weida_requester_peer_count: plus a handle-table lookup
  last-error        weida_last_error into the reused scratch buffer
  msg-copy-1KiB     ctypes.string_at of 1 KiB (a result's one copy out)
  wakeup            loop.call_soon_threadsafe from another thread until the
                    callback runs on the loop (self-pipe write and wake)
  async-callback    one _async call that completes at once, awaited via
                    the foreign-thread callback (PyGILState_Ensure per call)
  async-cq          the same call awaited via the completion queue
                    (eventfd + one drain call per wakeup)
  sync-blocking     the same call in its blocking form

Each line is the median of N calls in ns.
"""

import argparse
import asyncio
import ctypes
import statistics
import threading
import time

import weida
import weida.sync
from weida import _loop
from weida._boundary import last_error
from weida._ffi import lib

libc = ctypes.CDLL(None)
libc.getpid.restype = ctypes.c_int
libc.getpid.argtypes = ()


def timed(fn, n: int) -> float:
    """Median ns of fn() over n calls, timing each call."""
    clock = time.perf_counter_ns
    samples = []
    for _ in range(n):
        start = clock()
        fn()
        samples.append(clock() - start)
    return statistics.median(samples)


async def atimed(fn, n: int) -> float:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(n):
        start = clock()
        await fn()
        samples.append(clock() - start)
    return statistics.median(samples)


def line(name: str, ns: float) -> None:
    print(f"{name:18s} {ns:9.0f} ns")


async def wakeup(n: int) -> float:
    """Median ns from call_soon_threadsafe on a thread to the callback."""
    loop = asyncio.get_running_loop()
    samples = []
    for _ in range(n):
        fut = loop.create_future()
        sent = [0]

        def ping():
            sent[0] = time.perf_counter_ns()
            loop.call_soon_threadsafe(fut.set_result, None)

        t = threading.Thread(target=ping)
        t.start()
        await fut
        samples.append(time.perf_counter_ns() - sent[0])
        t.join()
    return statistics.median(samples)


async def async_forms(n: int, sub_async, sub_sync) -> None:
    line("wakeup", await wakeup(min(n, 2000)))
    saved = _loop.completion_route()
    for route in ("callback", "cq"):
        if not _loop.set_completion_route(route):
            print(f"async-{route:12s} (not available in this build)")
            continue
        line(f"async-{route}", await atimed(lambda: sub_async.subscribe("t"), n))
    _loop.set_completion_route(saved)
    line("sync-blocking", timed(lambda: sub_sync.subscribe("t"), n))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000, help="calls per figure")
    n = ap.parse_args().n

    rt = weida.sync.Runtime()
    requester = rt.requester(weida.Trust.by_address())
    h = requester._h
    count = ctypes.c_size_t()
    ref = ctypes.byref(count)
    lib.weida_close(0)  # leaves an error behind for last-error to read
    payload = ctypes.create_string_buffer(1024)
    addr = ctypes.addressof(payload)

    line("ctypes-c", timed(libc.getpid, n))
    line("abi-noop", timed(lib.weida_abi_version, n))
    line("abi-lookup", timed(lambda: lib.weida_requester_peer_count(h, ref), n))
    line("last-error", timed(last_error, n))
    line("msg-copy-1KiB", timed(lambda: ctypes.string_at(addr, 1024), n))

    sub_sync = rt.subscriber(weida.Trust.by_address())

    async def run() -> None:
        art = weida.Runtime()
        sub_async = art.subscriber(weida.Trust.by_address())
        await async_forms(n, sub_async, sub_sync)

    asyncio.run(run())


if __name__ == "__main__":
    main()
