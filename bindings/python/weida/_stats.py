"""Connection statistics (SURFACE.md §2.4): the value classes both
surfaces return from ``connection_stats()``, and the one reader that fills
them from ``weida_<role>_connection_stats``.

Nothing here is invented: a figure the library did not measure is ``None``.
A local transport (``weida+inproc://``, ``weida+unix://``) has no network
path, so its ``transport`` is ``None``; ``remote`` is the peer's own path
report, present over QUIC when both runtimes were made with
``path_report=True`` (never over a local transport).
Times are float seconds.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_size_t
from typing import Any, List, Optional

from ._boundary import check
from ._ffi import END, ETRUNCATED
from ._ffi import ConnectionStats as _CConnectionStats


class _Record:
    """A read-only value: fields named by ``__slots__``, set once by
    keyword, compared and printed field by field."""

    __slots__ = ()

    def __init__(self, **fields: Any) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, fields.pop(name, None))
        if fields:
            raise TypeError(f"{type(self).__name__} has no field {sorted(fields)[0]!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({shown})"


class PathStats(_Record):
    """quic-go's view of the network path (RFC 9002 §5); times in seconds.
    quic-go does not expose the path MTU, so ``current_mtu`` is always
    ``None`` in this build."""

    __slots__ = ("rtt", "min_rtt", "latest_rtt", "rtt_variation", "congestion_window", "lost_packets",
                 "lost_bytes", "current_mtu")
    rtt: float  # smoothed round-trip time
    min_rtt: float
    latest_rtt: float
    rtt_variation: float  # mean deviation
    congestion_window: int  # bytes, QUIC packet overhead included
    lost_packets: int  # may fall: a packet declared lost can still arrive
    lost_bytes: int
    current_mtu: Optional[int]


class UdpCounts(_Record):
    """Traffic one way. quic-go counts QUIC packets (coalesced handshake
    packets count one each, so this is not a count of UDP datagrams) and
    their bytes without UDP/IP headers, retransmissions included."""

    __slots__ = ("packets", "bytes")
    packets: int
    bytes: int


class TransportStats(_Record):
    """What a QUIC connection's stack measures: the path, and the traffic
    sent (``tx``) and received (``rx``)."""

    __slots__ = ("path", "tx", "rx")
    path: PathStats
    tx: UdpCounts
    rx: UdpCounts


class RemoteStats(_Record):
    """The peer's own path report (PROTOCOL.md §8.9): what its QUIC stack
    measured, as of the newest record it sent (one every 2 s). A figure the
    peer did not state is ``None``; ``age`` is the seconds since the record
    arrived. Times are seconds."""

    __slots__ = ("rtt", "min_rtt", "congestion_window", "congestion_events", "lost_packets", "lost_bytes",
                 "sent_packets", "current_mtu", "tx_datagrams", "tx_bytes", "rx_datagrams", "rx_bytes", "age")
    rtt: Optional[float]
    min_rtt: Optional[float]
    congestion_window: Optional[int]  # bytes
    congestion_events: Optional[int]
    lost_packets: Optional[int]
    lost_bytes: Optional[int]
    sent_packets: Optional[int]
    current_mtu: Optional[int]
    tx_datagrams: Optional[int]
    tx_bytes: Optional[int]
    rx_datagrams: Optional[int]
    rx_bytes: Optional[int]
    age: float


def _remote(c: _CConnectionStats) -> Optional[RemoteStats]:
    """The record's figures, each ``None`` unless its bit (the record key)
    is set in ``remote_known``."""
    if not c.has_remote:
        return None
    figures = {name: getattr(c, "remote_" + name) for name in RemoteStats.__slots__[:-1]}
    known = {name: value if c.remote_known & (1 << key) else None for key, (name, value) in enumerate(figures.items())}
    return RemoteStats(age=c.remote_age, **known)


class ConnectionStats(_Record):
    """One connected URL of a dialling endpoint. ``url`` is the address
    exactly as the application dialled it (never a resolved address or a
    learned fingerprint); ``live`` whether it has a connection now; ``age``
    the seconds that connection has been live (0.0 while down); ``redials``
    the connections made after the first; ``transport`` QUIC's measurement,
    ``None`` on a local transport and while down; ``remote`` the peer's path
    report or ``None`` (see ``RemoteStats``)."""

    __slots__ = ("url", "live", "age", "redials", "transport", "remote")
    url: str
    live: bool
    age: float
    redials: int
    transport: Optional[TransportStats]
    remote: Optional[RemoteStats]


def _value(c: _CConnectionStats, url: str) -> ConnectionStats:
    transport = None
    if c.has_transport:
        path = PathStats(rtt=c.rtt, min_rtt=c.min_rtt, latest_rtt=c.latest_rtt, rtt_variation=c.rtt_variation,
                         congestion_window=c.congestion_window, lost_packets=c.lost_packets,
                         lost_bytes=c.lost_bytes)
        transport = TransportStats(path=path, tx=UdpCounts(packets=c.tx_packets, bytes=c.tx_bytes),
                                   rx=UdpCounts(packets=c.rx_packets, bytes=c.rx_bytes))
    return ConnectionStats(url=url, live=bool(c.live), age=c.age, redials=c.redials, transport=transport,
                           remote=_remote(c))


def connection_stats(fn: Any, h: int) -> List[ConnectionStats]:
    """Every connected URL of endpoint ``h``, in connect order: index 0, 1, …
    until the library answers END (an index names the same URL on every
    call, so asking one at a time is consistent)."""
    out: List[ConnectionStats] = []
    c = _CConnectionStats()
    url = ctypes.create_string_buffer(256)
    needed = c_size_t()
    while True:
        c.size = ctypes.sizeof(_CConnectionStats)
        rc = fn(h, len(out), byref(c), url, len(url), byref(needed))
        if rc == ETRUNCATED:
            url = ctypes.create_string_buffer(needed.value)
            rc = fn(h, len(out), byref(c), url, len(url), byref(needed))
        if rc == END:
            return out
        check(rc)
        out.append(_value(c, url.value.decode("utf-8", "replace")))
