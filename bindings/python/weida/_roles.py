"""What the asyncio and blocking pattern classes share (SURFACE.md §2.3, §2.5):
one base per role, holding its handle, the calls that never wait, and the
argument conversion of the calls that do. ``weida`` (_aio_patterns,
_aio_peers) and ``weida.sync`` subclass each base and add only the waiting
calls, awaited or blocking, and the members one surface has alone.

Calls that never wait go to the library directly (``_ffi.lib``); weida.sync
routes only waiting calls through ``_interrupt``.
"""

from __future__ import annotations

from ctypes import c_uint64
from typing import ClassVar, Tuple

from ._boundary import Bytes, bytes_arg, ceiling, check, credit, out_count, take_bytes, text
from ._common import count_of, path_of
from ._ffi import lib
from ._handle import Handle
from ._stats import ConnectionStats, connection_stats
from ._values import IncomingMeta, survey_args


class Endpoint(Handle):
    """A role's handle and the arguments most of its waiting calls take."""

    __slots__ = ()

    def _ceiling_args(self, max_bytes: int) -> Tuple[object, ...]:
        """For a receive or accept: the payload's ceiling."""
        return (self._h, ceiling(max_bytes, "max_bytes"))

    def _payload_args(self, payload: Bytes) -> Tuple[object, ...]:
        data, n = bytes_arg(payload)
        return (self._h, data, n)


class Dialler(Endpoint):
    """A role that dials: its connections' statistics."""

    __slots__ = ()
    _stats_fn: ClassVar[str]  # the role's weida_*_connection_stats

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(getattr(lib, self._stats_fn), self._h)


class RequesterBase(Dialler):
    __slots__ = ()
    _stats_fn = "weida_requester_connection_stats"

    def _request_args(self, payload: Bytes, max_reply_bytes: int) -> Tuple[object, ...]:
        return (*self._payload_args(payload), ceiling(max_reply_bytes, "max_reply_bytes"))

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_requester_peer_count, self._h)


class RequestBase(Endpoint):
    """Reads the request's payload and meta on accept; answering it is the
    surface's."""

    __slots__ = ()

    @staticmethod
    def _read(h: int) -> Tuple[bytes, IncomingMeta]:
        return take_bytes(lib.weida_request_payload, h), IncomingMeta._read(h)

    def _refuse(self) -> None:
        check(lib.weida_request_refuse(self._h))


class ReplierBase(Endpoint):
    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_replier_path, self._h)


class PusherBase(Dialler):
    __slots__ = ()
    _stats_fn = "weida_pusher_connection_stats"

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_pusher_peer_count, self._h)

    def dropped(self) -> int:
        """Outbox bodies dropped or lost before they could be written."""
        return count_of(lib.weida_pusher_dropped, self._h, c_uint64)


class PullerBase(Endpoint):
    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_puller_path, self._h)


class PublisherBase(Endpoint):
    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_publisher_path, self._h)

    def publish(self, topic: str, payload: Bytes) -> int:
        """Queues one copy per matching subscriber; returns how many (0 is
        normal). Above the 8 MiB subscriber budget raises ``LimitExceeded``."""
        data, n = bytes_arg(payload)
        return out_count(lib.weida_publisher_publish, self._h, text(topic, "topic"), data, n)

    def subscriber_count(self) -> int:
        """Connected subscribers."""
        return count_of(lib.weida_publisher_subscriber_count, self._h)

    def dropped(self) -> int:
        """Copies dropped, every cause."""
        return count_of(lib.weida_publisher_dropped, self._h, c_uint64)


class SubscriberBase(Dialler):
    __slots__ = ()
    _stats_fn = "weida_subscriber_connection_stats"

    def _filter_args(self, filter: str) -> Tuple[object, ...]:
        return (self._h, text(filter, "filter"))

    def _grant_args(self, limit: int) -> Tuple[object, ...]:
        return (self._h, credit(limit, "limit"))

    def granted(self) -> int:
        """The standing grant; 0 before the first."""
        return count_of(lib.weida_subscriber_granted, self._h, c_uint64)


class PairedBase(Endpoint):
    __slots__ = ()

    def path(self) -> str:
        """The registered path (bound end) or the dialled one."""
        return path_of(lib.weida_paired_path, self._h)

    def peer_count(self) -> int:
        """0 or 1."""
        return count_of(lib.weida_paired_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """The dialled URL's statistics (``[]`` on a bound PAIR, which dials
        nothing): ``transport`` is ``None`` over a local transport and while down."""
        return connection_stats(lib.weida_paired_connection_stats, self._h)


class SurveyorBase(Dialler):
    __slots__ = ()
    _stats_fn = "weida_surveyor_connection_stats"

    def _survey_args(self, payload: Bytes, deadline_seconds: float, max_reply_bytes: int) -> Tuple[object, ...]:
        return (self._h, *survey_args(payload, deadline_seconds, max_reply_bytes))

    def peer_count(self) -> int:
        """Live respondents."""
        return count_of(lib.weida_surveyor_peer_count, self._h)


class RespondentBase(Endpoint):
    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_respondent_path, self._h)


class BusMemberBase(Dialler):
    __slots__ = ()
    _stats_fn = "weida_bus_connection_stats"

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_bus_peer_count, self._h)

    def dropped(self) -> int:
        """Copies dropped."""
        return count_of(lib.weida_bus_dropped, self._h, c_uint64)

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_bus_path, self._h)
