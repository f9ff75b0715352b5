"""The blocking RADIO/DISH classes of ``weida.sync``: the asyncio surface's
calls, each blocking, with the radio and segment shared in ``_radio``."""

from __future__ import annotations

from ctypes import byref, c_int, c_uint64
from typing import Optional

from ._aio_radio import DishMessage
from ._boundary import ceiling, check, text
from ._common import count_of
from ._interrupt import lib
from ._handle import Handle
from ._radio import RadioBase, SegmentBase, dish_message, join_options
from ._stats import ConnectionStats, connection_stats


class Segment(SegmentBase):
    """One segment being written (from ``Radio.segment``): ``write`` or
    ``write_layer`` its chunks, then ``finish``. Nothing waits for a dish."""

    __slots__ = ()


class Radio(RadioBase):
    """The bound side of RADIO/DISH (from ``Binding.radio``): lossy fan-out
    of segments. Nothing here waits for a dish."""

    __slots__ = ()
    _Segment = Segment


class Dish(Handle):
    """The dialling side of RADIO/DISH (from ``Runtime.dish``): connects to
    radios, joins topics and receives from all of them."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials a radio and sends it every join held so far."""
        check(lib.weida_dish_connect(self._h, text(url, "url")))

    def join(self, filter: str, max_age: Optional[float] = None, max_layer: Optional[int] = None) -> None:
        """Joins ``filter`` with a latency budget ``max_age`` (seconds) and a
        layer cap ``max_layer`` (above 15 raises ``LimitExceeded``); the radio
        applies it shortly after this returns."""
        opts = join_options(max_age, max_layer)
        check(lib.weida_dish_join(self._h, text(filter, "filter"), byref(opts)))

    def leave(self, filter: str) -> None:
        """Drops ``filter``; an unknown one is not an error."""
        check(lib.weida_dish_leave(self._h, text(filter, "filter")))

    def recv(self, max_bytes: int) -> DishMessage:
        """The next segment, ``("segment", payload, meta)``, or datagram
        segment, ``("datagram", topic, segment, payload)``, under ``max_bytes``
        (a larger one raises ``LimitExceeded`` and the dish goes on)."""
        msg, kind = c_uint64(), c_int()
        check(lib.weida_dish_recv(self._h, ceiling(max_bytes, "max_bytes"), byref(msg), byref(kind)))
        return dish_message(msg.value, kind.value)

    def peer_count(self) -> int:
        """Live radio connections."""
        return count_of(lib.weida_dish_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_dish_connection_stats, self._h)
