"""Shared test scaffolding: wall-clock bounds, a served binding, waiting on
observable conditions.

Every test runs under a watchdog (faulthandler) that dumps every thread's
stack and kills the process if the test outlives WATCHDOG_SECONDS, so a
deadlock fails the run instead of hanging it. Coroutine tests are also run
under ``asyncio.wait_for(…, TEST_SECONDS)``, which fails just that test when
the event loop itself is still responsive.
"""

from __future__ import annotations

import asyncio
import faulthandler
import functools
import inspect
import os
import sys
import threading
import time
import unittest
from pathlib import Path

import weida
import weida.sync

TEST_SECONDS = 15.0
WATCHDOG_SECONDS = TEST_SECONDS + 5.0
MIB = 1 << 20

# tests/ -> python/ -> bindings/ -> the repository
REPO = Path(__file__).resolve().parents[3]


def header_path() -> Path:
    """include/weida.h of the checkout under test (WEIDA_HEADER overrides)."""
    return Path(os.environ.get("WEIDA_HEADER", REPO / "include" / "weida.h"))


def _bounded(coro_fn):
    @functools.wraps(coro_fn)
    def run(self):
        async def body():
            await asyncio.wait_for(coro_fn(self), TEST_SECONDS)

        asyncio.run(body())

    return run


class BoundedCase(unittest.TestCase):
    """A TestCase whose tests, sync or async, run under wall-clock bounds.

    ``async def test_*`` methods are run with ``asyncio.run`` under
    ``wait_for``; every test runs under the faulthandler watchdog.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, fn in list(vars(cls).items()):
            if name.startswith("test") and inspect.iscoroutinefunction(fn):
                setattr(cls, name, _bounded(fn))

    def setUp(self):
        faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True, file=sys.stderr)

    def tearDown(self):
        faulthandler.cancel_dump_traceback_later()


async def until(condition, what: str, seconds: float = 5.0) -> None:
    """Waits for an observable condition the library reaches asynchronously
    (a subscription arriving at the publisher, a peer count)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)


def until_sync(condition, what: str, seconds: float = 5.0) -> None:
    """``until`` for threads."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


async def served():
    """(server runtime, binding, client runtime) over QUIC on loopback."""
    server = weida.Runtime()
    binding = await server.bind("127.0.0.1:0", weida.Identity.generate())
    return server, binding, weida.Runtime()


def served_sync():
    """(server runtime, binding, client runtime) for weida.sync."""
    server = weida.sync.Runtime()
    binding = server.bind("127.0.0.1:0", weida.Identity.generate())
    return server, binding, weida.sync.Runtime()


def background(target, *args) -> threading.Thread:
    """Runs a server loop on a daemon thread (it ends with its endpoint)."""
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


def by_address() -> weida.Trust:
    """The trust every client test uses: the key the URL names."""
    return weida.Trust.by_address()
