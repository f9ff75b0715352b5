"""The asyncio RADIO/DISH classes (SURFACE.md §2.3). A radio and its
segments never wait, so their calls are plain methods (``_radio``); the
dish's connect, join, leave and receive are coroutines."""

from __future__ import annotations

from ctypes import byref
from typing import Optional, Tuple, Union

from . import _loop
from ._aio_patterns import connect
from ._boundary import ceiling, text
from ._common import count_of
from ._ffi import lib
from ._handle import Handle
from ._radio import RadioBase, SegmentBase, dish_message, join_options
from ._stats import ConnectionStats, connection_stats
from ._values import IncomingMeta

#: What ``Dish.recv`` returns: ``("segment", payload, meta)`` or
#: ``("datagram", topic, segment, payload)``.
DishMessage = Union[Tuple[str, bytes, IncomingMeta], Tuple[str, str, int, bytes]]


class Segment(SegmentBase):
    """One segment being written (from ``Radio.segment``): ``write`` or
    ``write_layer`` its chunks, then ``finish``. Nothing waits for a dish."""

    __slots__ = ()


class Radio(RadioBase):
    """The bound side of RADIO/DISH (from ``Binding.radio``): lossy fan-out
    of segments to the dishes whose filter matches their topic. Nothing
    here waits for a dish, so nothing is a coroutine."""

    __slots__ = ()
    _Segment = Segment


class Dish(Handle):
    """The dialling side of RADIO/DISH (from ``Runtime.dish``): connects to
    radios, joins topics with its terms, and receives segments and datagram
    segments from all of them. Nothing is kept for it: a late joiner gets
    the next segment, and a lost one is a gap in the numbers it sees."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials a radio and sends it every join held so far."""
        await connect(lib.weida_dish_connect_async, self._h, url)

    async def join(self, filter: str, max_age: Optional[float] = None, max_layer: Optional[int] = None) -> None:
        """Joins ``filter`` on every connection, now and after redials; it
        matches topics as a subscriber's filter does (``"cam.#"`` takes
        ``"cam"`` and ``"cam.front"``, ``""`` every topic). Joining again
        updates the terms. ``max_age`` (seconds) is the
        latency budget: older copies are dropped on the way; ``max_layer``
        caps the layers sent (above 15 raises ``LimitExceeded``). The radio
        applies the join shortly after this returns."""
        opts = join_options(max_age, max_layer)
        await _loop.call(lib.weida_dish_join_async, (self._h, text(filter, "filter"), byref(opts)), _loop.unit)

    async def leave(self, filter: str) -> None:
        """Drops ``filter``; an unknown one is not an error."""
        await _loop.call(lib.weida_dish_leave_async, (self._h, text(filter, "filter")), _loop.unit)

    async def recv(self, max_bytes: int) -> DishMessage:
        """The next segment, ``("segment", payload, meta)`` (``meta.topic``,
        ``meta.segment`` and ``meta.layer`` say which), or datagram segment,
        ``("datagram", topic, segment, payload)``. One above ``max_bytes`` is
        discarded with ``LimitExceeded``, and the dish goes on."""
        return await _loop.call(lib.weida_dish_recv_async, (self._h, ceiling(max_bytes, "max_bytes")),
                                dish_message, owned=1)

    def peer_count(self) -> int:
        """Live radio connections."""
        return count_of(lib.weida_dish_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_dish_connection_stats, self._h)
