"""What both surfaces' RADIO/DISH share (SURFACE.md §2.3): the radio and
its segments, which never wait (so each surface only names its classes),
the ``DishDrops`` value, and the checks and conversions of the dish's
arguments and results.

A radio fans segments out to the dishes that joined a matching filter,
losing rather than waiting: opening a segment supersedes the older copies
still in flight on its topic, and a copy without room is lost and counted
for that dish alone. Datagram segments need ``Runtime(datagrams=True)`` on
both ends.
"""

from __future__ import annotations

import ctypes
import math
from ctypes import byref, c_size_t
from typing import Any, List, Optional

from ._boundary import Bytes, bytes_arg, check, close, deadline, out_count, out_handle, read_text, take_bytes, text
from ._common import count_of
from ._ffi import DISH_DATAGRAM, ETRUNCATED, OK, JoinOpts, SegmentOpts, lib
from ._ffi import DishDrops as _CDishDrops
from ._handle import Handle
from ._values import IncomingMeta

_U32_MAX = 2**32 - 1
_I16 = (-(2**15), 2**15 - 1)


def _max_age_ms(max_age: Optional[float]) -> int:
    """Whole milliseconds of a max age (None: none); a positive age below
    one millisecond rounds up, since 0 means none."""
    if max_age is None:
        return 0
    return math.ceil(deadline(max_age, "max_age") * 1000)


def _index(value: object, what: str) -> int:
    """A layer number: a non-negative int; the library judges the range (0..15)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{what} must not be negative (got {value})")
    return min(value, _U32_MAX)


def segment_options(max_age: Optional[float], priority: int, follows_upstream: bool) -> SegmentOpts:
    """weida_segment_opts_t for ``Radio.segment``."""
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise TypeError(f"priority must be an int, not {type(priority).__name__}")
    if not _I16[0] <= priority <= _I16[1]:
        raise ValueError(f"priority must be within {_I16[0]}..{_I16[1]} (got {priority})")
    return SegmentOpts(size=ctypes.sizeof(SegmentOpts), max_age_ms=_max_age_ms(max_age), priority=priority,
                       follows_upstream=1 if follows_upstream else 0)


def join_options(max_age: Optional[float], max_layer: Optional[int]) -> JoinOpts:
    """weida_join_opts_t for ``Dish.join``: a layer cap above 15 is the
    library's ``LimitExceeded``."""
    opts = JoinOpts(size=ctypes.sizeof(JoinOpts), max_age_ms=_max_age_ms(max_age))
    if max_layer is not None:
        opts.cap_layers, opts.max_layer = 1, _index(max_layer, "max_layer")
    return opts


def dish_message(a: int, b: int) -> tuple:
    """A dish's msg handle ``a`` of kind ``b`` as ``Dish.recv`` returns it:
    ``("segment", payload, meta)`` or ``("datagram", topic, segment, payload)``.
    The handle is closed."""
    try:
        payload = take_bytes(lib.weida_msg_data, a)
        meta = IncomingMeta._read(a)
    finally:
        close(a)
    if b == DISH_DATAGRAM:
        return ("datagram", meta.topic, meta.segment, payload)
    return ("segment", payload, meta)


class DishDrops:
    """What one dish lost at a radio, by cause. Every count but
    ``layers_cut`` is a whole segment copy (or datagram segment) the dish
    never got; ``layers_cut`` counts copies that lost layers above 0 but
    kept layer 0. ``no_parked`` is for unix dishes only: their datagrams
    travel on a reverse connection the dish parks, so over QUIC it stays 0."""

    __slots__ = ("peer", "addr", "subscriber_budget", "subscriber_queue", "superseded", "expired",
                 "too_large", "no_datagrams", "no_parked", "layers_cut")

    def __init__(self, c: _CDishDrops) -> None:  # internal
        self.peer: Optional[str] = c.peer.decode("utf-8", "replace") or None  #: ``sha256:…`` the dish proved, or None
        self.addr: str = c.addr.decode("utf-8", "replace")  #: its UDP address, telling anonymous dishes apart
        self.subscriber_budget: int = c.subscriber_budget  #: no room in the dish's byte budget
        self.subscriber_queue: int = c.subscriber_queue  #: a layer's queue of chunks was full
        self.superseded: int = c.superseded  #: reset because a newer segment on the topic opened
        self.expired: int = c.expired  #: older than the smaller max_age
        self.too_large: int = c.too_large  #: a datagram larger than the dish's datagram size
        self.no_datagrams: int = c.no_datagrams  #: a datagram for a dish without datagram flows
        self.no_parked: int = c.no_parked  #: a datagram for a unix dish with no reverse connection parked
        self.layers_cut: int = c.layers_cut  #: copies that lost upper layers under pressure

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={getattr(self, n)}" for n in self.__slots__[2:] if getattr(self, n))
        return f"DishDrops(peer={self.peer!r}, addr={self.addr!r}{', ' if counts else ''}{counts})"


def _dish_drops(h: int) -> List[DishDrops]:
    """Every dish's drops: asks for the count, then again with room for it
    (and again if more dishes came in between)."""
    n = c_size_t()
    rc = lib.weida_radio_dish_drops(h, None, 0, byref(n))
    while rc == ETRUNCATED:
        array = (_CDishDrops * n.value)()
        array[0].size = ctypes.sizeof(_CDishDrops)
        rc = lib.weida_radio_dish_drops(h, array, len(array), byref(n))
        if rc == OK:
            return [DishDrops(array[i]) for i in range(n.value)]
    check(rc)
    return []


class SegmentBase(Handle):
    """One segment being written to the dishes that matched its topic when it
    opened. Nothing waits for a dish: each write returns how many copies
    took the chunk. ``finish`` it; dropping it unfinished cancels it: every
    copy is reset, so no dish waits for the rest and none takes the
    half-written unit for a whole one."""

    __slots__ = ()

    def write(self, chunk: Bytes) -> int:
        """Writes ``chunk`` to layer 0; returns how many copies took it."""
        data, n = bytes_arg(chunk, "chunk")
        return out_count(lib.weida_segment_write, self._h, data, n)

    def write_layer(self, layer: int, chunk: Bytes) -> int:
        """Writes ``chunk`` to ``layer`` (0..15, else ``LimitExceeded``). A
        copy without room gives up its upper layers first; losing layer 0
        loses the segment for that dish. A layer above a dish's cap is never
        sent to it."""
        data, n = bytes_arg(chunk, "chunk")
        return out_count(lib.weida_segment_write_layer, self._h, _index(layer, "layer"), data, n)

    def finish_layer(self, layer: int) -> None:
        """Ends one layer on every copy."""
        check(lib.weida_segment_finish_layer(self._h, _index(layer, "layer")))

    def finish(self) -> int:
        """Ends every layer; returns how many copies are not lost. A second
        finish raises ``NoReply``."""
        return out_count(lib.weida_segment_finish, self._h)


class RadioBase(Handle):
    """The bound side of RADIO/DISH: lossy fan-out of segments. Nothing on
    a radio waits for a dish, so nothing here is a coroutine."""

    __slots__ = ()
    _Segment: Any

    def segment(self, topic: str, max_age: Optional[float] = None, priority: int = 0,
                follows_upstream: bool = False) -> Any:
        """Opens the next segment on ``topic`` (numbered from 0 per topic),
        superseding the older copies still in flight there. ``max_age``
        (seconds) expires every copy that long after it opened; ``priority``
        (-32768..32767) nudges its urgency against other segments;
        ``follows_upstream`` keeps its copies alive when a successor opens."""
        opts = segment_options(max_age, priority, follows_upstream)
        return self._Segment(out_handle(lib.weida_radio_segment, self._h, text(topic, "topic"), byref(opts)), self)

    def datagram(self, topic: str, payload: Bytes) -> int:
        """Sends ``payload`` as a one-packet segment to every matching dish;
        returns how many took it. Never turned into a stream: a dish without
        datagrams, or whose datagram size it exceeds, loses it (counted in
        ``dish_drops``)."""
        data, n = bytes_arg(payload)
        return out_count(lib.weida_radio_datagram, self._h, text(topic, "topic"), data, n)

    def dish_count(self) -> int:
        """Dish connections holding a join here."""
        return count_of(lib.weida_radio_dish_count, self._h)

    def dropped(self) -> int:
        """Whole segments lost over every dish (layers cut are not counted)."""
        return count_of(lib.weida_radio_dropped, self._h, ctypes.c_uint64)

    def dish_drops(self) -> List[DishDrops]:
        """Each connected dish's losses by cause."""
        return _dish_drops(self._h)

    def path(self) -> str:
        """The registered path."""
        return read_text(lib.weida_radio_path, self._h)

