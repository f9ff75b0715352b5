"""Completion reports on the asyncio surface: ``Cursors`` and ``Reporter``
(SURFACE.md §2.3), and the ordering forms of send, open and receive that the
endpoint classes share. Cursors are read with
``while (s := await cursors.changed()) is not None:`` — there is no
``async for``."""

from __future__ import annotations

from ctypes import byref, c_int
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from . import _loop
from ._boundary import Bytes, bytes_arg, check
from ._cursors import CursorsBase, ReporterBase, order_args
from ._ffi import lib
from ._handle import Handle
from ._values import IncomingMeta, take_msg

# weida_cursors_changed: a negative deadline waits without one (the asyncio
# timeout is asyncio.wait_for, whose cancel cancels the wait).
_NO_DEADLINE = -1.0


class Cursors(CursorsBase):
    """The sender's view of the report it ordered (from ``send(…, report=…)``
    or ``OutgoingStream.cursors()``): per ordered level, the highest offset
    the receiver reported."""

    __slots__ = ()

    async def changed(self) -> Optional[Dict[int, int]]:
        """Waits until the cursors moved and returns the new ``{level:
        offset}``; ``None`` once the report ended and every change was
        returned (the reporter finished, the stream was reset or the
        connection is gone — none is an error). A report nobody answers may
        stay silent until the connection ends: bound the wait with
        ``asyncio.wait_for``, which leaves the report going."""
        return await _loop.call(lib.weida_cursors_changed_async, (self._h, _NO_DEADLINE),
                                lambda a, b: self.snapshot(), end=None)


class Reporter(ReporterBase):
    """The receiving side of a report order (from ``recv_reporting`` or
    ``IncomingStream.reporter()``). ``levels`` are the ordered levels,
    ascending, and ``mode`` the sender's mode. Nothing here waits for the
    network or the sender."""

    __slots__ = ()

    async def report(self, level: int, offset: int) -> None:
        """States that payload bytes ``[0, offset)`` reached ``level`` (an
        absolute offset, never a delta). A level the sender did not order is
        ignored, not refused; after ``finish`` raises ``NoReply``."""
        self._report(level, offset)

    async def finish(self) -> None:
        """Ends the report: the latest offsets go out, then the end. Once; a
        second call raises ``NoReply``."""
        self._finish()


def cursors_value(a: int, b: int) -> Optional[Cursors]:
    """Converter: the cursors handle a, or None when nothing was ordered."""
    return Cursors(a) if a else None


def reporting_value(parent: Handle) -> Callable[[int, int], Tuple[bytes, IncomingMeta, Optional[Reporter]]]:
    """Converter: (payload, meta, reporter or None) of a msg handle a and a
    reporter handle b (0 when nothing was ordered)."""

    def convert(a: int, b: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        reporter = Reporter(b, parent) if b else None  # owned before anything can fail
        payload, meta = take_msg(a)
        return payload, meta, reporter

    return convert


async def send_ordering(plain: Any, reporting: Any, h: int, payload: Bytes,
                        report: Optional[Iterable[int]], mode: int, try_now: Any = None) -> Optional[Cursors]:
    """A whole-payload send that orders a report when ``report`` is not
    None: ``plain`` and ``reporting`` are the endpoint's two _async sends;
    ``try_now``, when given, the send that never waits, tried first (what
    it sends needs neither a library thread nor a loop wake-up)."""
    data, n = bytes_arg(payload)
    if report is None:
        if try_now is not None:
            sent = c_int()
            check(try_now(h, data, n, byref(sent)))
            if sent.value:
                return None
        await _loop.call(plain, (h, data, n), _loop.unit)
        return None
    levels, count, m = order_args(report, mode)
    return await _loop.call(reporting, (h, data, n, levels, count, m), cursors_value, owned=1)


async def open_ordering(plain: Any, reporting: Any, h: int, report: Optional[Iterable[int]], mode: int,
                        convert: Callable[[int, int], Any]) -> Any:
    """A streamed transfer that orders a report when ``report`` is not None;
    its cursors come from ``OutgoingStream.cursors()``."""
    if report is None:
        return await _loop.call(plain, (h,), convert, owned=1)
    levels, count, m = order_args(report, mode)
    return await _loop.call(reporting, (h, levels, count, m), convert, owned=1)

