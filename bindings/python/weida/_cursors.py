"""Completion reports ("cursors"), the part both surfaces share
(SURFACE.md §2.2–2.3): the level and mode constants, turning a report order
into C arguments, and the calls on cursors and reporters that never wait.

A sender orders a report with ``send(payload, report=[PROCESSED])``: the
receiver answers through its ``Reporter`` (``recv_reporting``), and the
sender's ``Cursors`` show, per ordered level, the highest payload offset the
receiver reported. Nothing ever waits for a report, and a report is a
request, not a guarantee: a level nobody reports stays absent.
"""

from __future__ import annotations

from ctypes import Array, byref, c_int, c_size_t, c_uint64
from typing import Any, Dict, Iterable, List, Optional, Tuple

# Completion levels (plain ints: the space is open above APPLICATION_FLOOR,
# whose levels are carried, never interpreted) and report modes: weida.h's,
# from the generated table.
from ._abi import (  # noqa: F401
    ACCEPTED, APPLICATION_FLOOR, FINAL_ONLY, PROCESSED, PROGRESS, REPLICATED, STORED, TRANSPORT_RECEIPT,
)
from ._boundary import check
from ._errors import Protocol
from ._ffi import ETRUNCATED, lib
from ._handle import Handle

_WORD = 2**64
_C_INT = 2**31
# Levels an order, a snapshot or a reporter holds: at most 16 may be
# ordered, so one call nearly always has room.
_ROOM = 16


def word(value: object, what: str) -> int:
    """An unsigned 64-bit level or offset. Out of range is ``Protocol``: the
    wire has no encoding for it, as it has none for a reserved level."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < _WORD:
        raise Protocol(f"{what} {value} is out of range: it must be an integer in 0 .. 2**64-1")
    return value


def order_args(report: Iterable[int], mode: int) -> Tuple[Array, int, int]:
    """(levels array, count, mode): a report order as C arguments. The
    library judges the order itself (a reserved level, an unknown mode, more
    than 16 levels: ``Protocol``) before anything is sent."""
    if isinstance(report, (str, bytes, bytearray, int)):
        raise TypeError(f"report must be a list of int levels, not {type(report).__name__}")
    levels = [word(level, "report level") for level in report]
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise TypeError(f"mode must be an int (PROGRESS or FINAL_ONLY), not {type(mode).__name__}")
    if not -_C_INT <= mode < _C_INT:
        raise Protocol(f"report mode {mode} is neither PROGRESS (0) nor FINAL_ONLY (1)")
    return (c_uint64 * max(len(levels), 1))(*levels), len(levels), mode


def read_words(fn: Any, h: int, arrays: int, *trailing: Any) -> List[List[int]]:
    """Calls an array getter ``fn(h, arr1[, arr2], cap, &n, *trailing)``
    and returns the filled arrays, growing them once when they were short."""
    room = _ROOM
    while True:
        bufs = [(c_uint64 * room)() for _ in range(arrays)]
        n = c_size_t()
        rc = fn(h, *bufs, room, byref(n), *trailing)
        if rc == ETRUNCATED and n.value > room:
            room = n.value
            continue
        check(rc)
        return [list(b[: n.value]) for b in bufs]


class CursorsBase(Handle):
    """The sender's view of the report it ordered on one transfer: per
    ordered level, the highest payload offset the receiver reported. The
    report ends when the receiver finishes it, when its stream is reset or
    when the connection ends; none of these is an error. Dropping the
    cursors stops watching (the receiver's report ends silently)."""

    __slots__ = ()

    def snapshot(self) -> Dict[int, int]:
        """``{level: offset}`` of every level reported so far."""
        levels, offsets = read_words(lib.weida_cursors_snapshot, self._h, 2)
        return dict(zip(levels, offsets))

    def offset(self, level: int) -> Optional[int]:
        """The highest offset reported for ``level``; ``None`` when it was not
        ordered or nobody reported it yet."""
        value, present = c_uint64(), c_int()
        check(lib.weida_cursors_offset(self._h, word(level, "level"), byref(value), byref(present)))
        return value.value if present.value else None


class ReporterBase(Handle):
    """The receiving side of a report order. Records go out in the
    background, best effort: a sender that stopped listening or a lost
    connection ends the report, and later reports change nothing. Always
    finish a reporter (dropping an unfinished one finishes it)."""

    __slots__ = ("levels", "mode")

    def __init__(self, h: int, parent: Optional[Handle] = None) -> None:
        super().__init__(h, parent)
        (levels,) = read_words(lib.weida_reporter_levels, h, 1)
        mode = c_int()
        check(lib.weida_reporter_mode(h, byref(mode)))
        self.levels: List[int] = levels  #: the levels the sender ordered, ascending
        self.mode: int = mode.value  #: PROGRESS or FINAL_ONLY, as the sender asked

    def _report(self, level: int, offset: int) -> None:
        check(lib.weida_reporter_report(self._h, word(level, "level"), word(offset, "offset")))

    def _finish(self) -> None:
        check(lib.weida_reporter_finish(self._h))
