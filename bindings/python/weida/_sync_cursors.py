"""Completion reports on the blocking surface: ``weida.sync.Cursors`` and
``weida.sync.Reporter`` (SURFACE.md §2.5), and the ordering forms of send
and receive its endpoints share. The one difference from asyncio: a wait for
cursors takes a mandatory deadline."""

from __future__ import annotations

from ctypes import byref, c_uint64
from typing import Dict, Iterable, Optional, Tuple

from ._boundary import Bytes, bytes_arg, ceiling, check, deadline
from ._cursors import CursorsBase, ReporterBase, order_args
from ._ffi import END
from ._interrupt import lib
from ._handle import Handle
from ._values import IncomingMeta, take_msg


class Cursors(CursorsBase):
    """The sender's view of the report it ordered (from ``send(…, report=…)``):
    per ordered level, the highest offset the receiver reported."""

    __slots__ = ()

    def changed(self, seconds: float) -> Optional[Dict[int, int]]:
        """Waits up to ``seconds`` for the cursors to move and returns the new
        ``{level: offset}``; ``None`` once the report ended and every change
        was returned. When the deadline passes first, raises the built-in
        ``TimeoutError``, which does not end the report."""
        rc = lib.weida_cursors_changed(self._h, deadline(seconds, "seconds"))
        if rc == END:
            return None
        check(rc)
        return self.snapshot()


class Reporter(ReporterBase):
    """The receiving side of a report order (from ``recv_reporting``).
    ``levels`` are the ordered levels, ascending, and ``mode`` the sender's
    mode. Nothing here waits for the network or the sender."""

    __slots__ = ()

    def report(self, level: int, offset: int) -> None:
        """States that payload bytes ``[0, offset)`` reached ``level`` (an
        absolute offset). A level the sender did not order is ignored, not
        refused; after ``finish`` raises ``NoReply``."""
        self._report(level, offset)

    def finish(self) -> None:
        """Ends the report: the latest offsets go out, then the end. Once; a
        second call raises ``NoReply``."""
        self._finish()


def send_ordering(plain: object, reporting: object, h: int, payload: Bytes,
                  report: Optional[Iterable[int]], mode: int) -> Optional[Cursors]:
    """A whole-payload send that orders a report when ``report`` is not None."""
    data, n = bytes_arg(payload)
    if report is None:
        check(plain(h, data, n))
        return None
    levels, count, m = order_args(report, mode)
    out = c_uint64()
    check(reporting(h, data, n, levels, count, m, byref(out)))
    return Cursors(out.value) if out.value else None


def recv_reporting(fn: object, endpoint: Handle, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
    """(payload, meta, reporter or None) of the next message."""
    msg, rep = c_uint64(), c_uint64()
    check(fn(endpoint._h, ceiling(max_bytes, "max_bytes"), byref(msg), byref(rep)))
    reporter = Reporter(rep.value, endpoint) if rep.value else None
    payload, meta = take_msg(msg.value)
    return payload, meta, reporter
