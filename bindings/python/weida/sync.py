"""weida.sync: the blocking surface (SURFACE.md §2.5).

The same names and arguments as ``weida``, every call blocking, the GIL
released while it waits (ctypes.CDLL), one thread per endpoint. It is a
facade over the C library's own blocking functions, never a second
implementation. Differences from the asyncio surface, and only these:
``Runtime.bind`` blocks; ``drain(seconds)`` consumes the runtime (a later
call raises ``RuntimeFailure``); ``shutdown()`` exists; streamed forms are
absent (whole payloads only); ``Publisher`` has ``path``, ``publish``,
``subscriber_count`` and ``dropped`` only; ``Subscriber`` has no
``peer_count``; a ``Request``'s ``payload``/``meta`` raise ``RuntimeFailure``
once it is answered; ``Cursors.changed(seconds)`` takes a mandatory deadline
and raises ``DeadlinePassed`` (a ``TimeoutError``) when it passes.

Ctrl-C interrupts a blocking call made on the main thread: it raises
``KeyboardInterrupt`` within about 20 ms and the library operation is
cancelled (its streams reset), leaving the endpoint usable (see _interrupt).
Every object here works in a ``with`` block.

Values (``Trust``, ``Identity``, ``IncomingMeta``, ``Survey``) and
exceptions are the very classes ``weida`` exports.

Never call these from the thread running an asyncio event loop: the loop
stalls until the call returns. The library refuses a blocking call made from
its own completion threads with ``RuntimeFailure``.
"""

from __future__ import annotations

from ctypes import byref, c_uint64
from typing import Iterable, Optional, Tuple

from ._boundary import Bytes, bytes_arg, ceiling, check, credit, deadline, out_count, out_handle, take_bytes, text
from ._common import BindingBase, RuntimeBase, count_of, path_of
from ._cursors import PROGRESS
from ._errors import RuntimeFailure
from ._interrupt import lib
from ._handle import Handle
from ._stats import ConnectionStats, connection_stats
from ._sync_cursors import Cursors, Reporter, recv_reporting, send_ordering
from ._sync_radio import Dish, Radio, Segment
from ._values import Identity, IncomingMeta, Survey, survey_args, take_msg, take_payload

__all__ = [
    "Runtime", "Binding", "Requester", "Pusher", "Subscriber", "Replier", "Request", "Puller",
    "Publisher", "Paired", "Surveyor", "Respondent", "BusMember", "Radio", "Segment", "Dish", "Cursors",
    "Reporter",
]


def _recv(fn: object, h: int, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
    return take_msg(out_handle(fn, h, ceiling(max_bytes, "max_bytes")))


def _send(fn: object, h: int, data: bytes) -> None:
    p, n = bytes_arg(data)
    check(fn(h, p, n))


def _connect(fn: object, h: int, url: str) -> None:
    check(fn(h, text(url, "url")))


class Requester(Handle):
    """The asking side of Req/Rep: dials repliers, round-robin."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials ``url``; returns once negotiated (``Untrusted`` names a wrong key)."""
        _connect(lib.weida_requester_connect, self._h, url)

    def request(self, payload: Bytes, max_reply_bytes: int) -> bytes:
        """One whole request and its whole reply (under ``max_reply_bytes``)."""
        p, n = bytes_arg(payload)
        return take_payload(out_handle(lib.weida_requester_request, self._h, p, n,
                                       ceiling(max_reply_bytes, "max_reply_bytes")))

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_requester_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_requester_connection_stats, self._h)


class Request(Handle):
    """One accepted request owing one answer. ``payload`` and ``meta`` raise
    ``RuntimeFailure`` once it is answered (the request is spent). Dropping
    it unanswered sends NO_REPLY to the asker."""

    __slots__ = ("_payload", "_meta", "_spent")

    def __init__(self, h: int, parent: Handle) -> None:
        super().__init__(h, parent)
        self._payload = take_bytes(lib.weida_request_payload, h)
        self._meta = IncomingMeta._read(h)
        self._spent = False

    def _unspent(self, what: str) -> None:
        if self._spent:
            raise RuntimeFailure(f"the request was already answered: its {what} is spent")

    @property
    def payload(self) -> bytes:
        """The request, whole."""
        self._unspent("payload")
        return self._payload

    @property
    def meta(self) -> IncomingMeta:
        """What arrived with it."""
        self._unspent("meta")
        return self._meta

    def reply(self, payload: Bytes) -> None:
        """The whole reply, once; a second answer raises ``NoReply``."""
        _send(lib.weida_request_reply, self._h, payload)
        self._spent = True

    def refuse(self) -> None:
        """Answers with a refusal: the asker sees ``Rejected``."""
        check(lib.weida_request_refuse(self._h))
        self._spent = True


class Replier(Handle):
    """The answering side of Req/Rep, registered at a path."""

    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_replier_path, self._h)

    def accept(self, max_bytes: int) -> Request:
        """The next request, read whole under ``max_bytes``."""
        return Request(out_handle(lib.weida_replier_accept, self._h, ceiling(max_bytes, "max_bytes")), self)


class Pusher(Handle):
    """The sending side of Push/Pull."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials ``url``; returns once negotiated."""
        _connect(lib.weida_pusher_connect, self._h, url)

    def send(self, payload: Bytes, report: Optional[Iterable[int]] = None,
             mode: int = PROGRESS) -> Optional[Cursors]:
        """One whole message; returns once written with its end (not an
        application ack). ``report`` (levels, e.g. ``[PROCESSED]``) orders a
        report from the puller in ``mode`` and returns its ``Cursors``
        (``None`` for an empty order); such a send bypasses the outbox and
        waits for a live connection. A reserved level or an unknown mode
        raises ``Protocol`` before anything is sent."""
        return send_ordering(lib.weida_pusher_send, lib.weida_pusher_send_reporting, self._h, payload, report, mode)

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_pusher_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_pusher_connection_stats, self._h)

    def dropped(self) -> int:
        """Outbox bodies dropped or lost before they could be written."""
        return count_of(lib.weida_pusher_dropped, self._h, c_uint64)


class Puller(Handle):
    """The receiving side of Push/Pull, registered at a path."""

    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_puller_path, self._h)

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes`` (else ``LimitExceeded``)."""
        return _recv(lib.weida_puller_recv, self._h, max_bytes)

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        pusher ordered (``None`` when it ordered none)."""
        return recv_reporting(lib.weida_puller_recv_reporting, self, max_bytes)


class Publisher(Handle):
    """The publishing side of Pub/Sub (whole payloads only)."""

    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_publisher_path, self._h)

    def publish(self, topic: str, payload: Bytes) -> int:
        """Queues one copy per matching subscriber; returns how many (0 is
        normal). Above the 8 MiB subscriber budget raises ``LimitExceeded``."""
        p, n = bytes_arg(payload)
        return out_count(lib.weida_publisher_publish, self._h, text(topic, "topic"), p, n)

    def subscriber_count(self) -> int:
        """Connected subscribers."""
        return count_of(lib.weida_publisher_subscriber_count, self._h)

    def dropped(self) -> int:
        """Copies dropped, every cause."""
        return count_of(lib.weida_publisher_dropped, self._h, c_uint64)


class Subscriber(Handle):
    """The subscribing side of Pub/Sub, and a queue's consumer: ``grant``
    credit, ``recv_reporting``, report ``PROCESSED`` at the payload's length
    and ``finish`` (see ``weida.Subscriber``)."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials a publisher; returns once negotiated."""
        _connect(lib.weida_subscriber_connect, self._h, url)

    def subscribe(self, filter: str) -> None:
        """Adds a filter; one the library rejects raises ``Protocol``."""
        check(lib.weida_subscriber_subscribe(self._h, text(filter, "filter")))

    def unsubscribe(self, filter: str) -> None:
        """Removes a filter."""
        check(lib.weida_subscriber_unsubscribe(self._h, text(filter, "filter")))

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next copy, whole, under ``max_bytes``."""
        return _recv(lib.weida_subscriber_recv, self._h, max_bytes)

    def grant(self, limit: int) -> None:
        """Sets a queue's credit to ``limit`` messages per subscription in
        total, absolute and never lowered (a grant not above ``granted()``
        is ignored); credit starts at 0. To take n more, grant what was
        received plus n."""
        check(lib.weida_subscriber_grant(self._h, credit(limit, "limit")))

    def granted(self) -> int:
        """The standing grant; 0 before the first."""
        return count_of(lib.weida_subscriber_granted, self._h, c_uint64)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_subscriber_connection_stats, self._h)

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        sender ordered, or ``None``. A queue holds its delivery unsettled
        until ``PROCESSED`` is reported at ``len(payload)`` and the reporter
        finished; ``PROCESSED`` at 0, then ``finish``, gives it back."""
        return recv_reporting(lib.weida_subscriber_recv_reporting, self, max_bytes)


class Paired(Handle):
    """One end of a PAIR; the first peer is kept, a second is refused."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials the bound end (once; a second call raises ``LimitExceeded``)."""
        _connect(lib.weida_paired_connect, self._h, url)

    def send(self, payload: Bytes, report: Optional[Iterable[int]] = None,
             mode: int = PROGRESS) -> Optional[Cursors]:
        """One whole message to the peer; ``report`` orders a report from it
        and returns the ``Cursors``, as ``Pusher.send`` does."""
        return send_ordering(lib.weida_paired_send, lib.weida_paired_send_reporting, self._h, payload, report, mode)

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes``."""
        return _recv(lib.weida_paired_recv, self._h, max_bytes)

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        peer ordered, or ``None``."""
        return recv_reporting(lib.weida_paired_recv_reporting, self, max_bytes)

    def path(self) -> str:
        """The registered or dialled path."""
        return path_of(lib.weida_paired_path, self._h)

    def peer_count(self) -> int:
        """0 or 1."""
        return count_of(lib.weida_paired_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """The dialled URL's statistics (``[]`` on a bound PAIR, which dials
        nothing): ``transport`` is ``None`` over a local transport and while down."""
        return connection_stats(lib.weida_paired_connection_stats, self._h)


class Surveyor(Handle):
    """The asking side of SURVEY."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Adds a respondent."""
        _connect(lib.weida_surveyor_connect, self._h, url)

    def survey(self, payload: Bytes, deadline_seconds: float, max_reply_bytes: int) -> Survey:
        """Asks every respondent, collecting replies until the deadline;
        silence is counted, not raised."""
        h = out_handle(lib.weida_surveyor_survey, self._h, *survey_args(payload, deadline_seconds, max_reply_bytes))
        return Survey._take(h)

    def peer_count(self) -> int:
        """Live respondents."""
        return count_of(lib.weida_surveyor_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_surveyor_connection_stats, self._h)


class Respondent(Handle):
    """The answering side of SURVEY, registered at a path."""

    __slots__ = ()

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_respondent_path, self._h)

    def accept(self, max_bytes: int) -> Request:
        """The next question as a ``Request``."""
        return Request(out_handle(lib.weida_respondent_accept, self._h, ceiling(max_bytes, "max_bytes")), self)


class BusMember(Handle):
    """A BUS member: bound and dialling at once; a send never reaches the sender."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials another member."""
        _connect(lib.weida_bus_connect, self._h, url)

    def send(self, payload: Bytes) -> int:
        """One copy to every live member; returns members reached."""
        p, n = bytes_arg(payload)
        return out_count(lib.weida_bus_send, self._h, p, n)

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes``."""
        return _recv(lib.weida_bus_recv, self._h, max_bytes)

    def peer_count(self) -> int:
        """Live connections."""
        return count_of(lib.weida_bus_peer_count, self._h)

    def connection_stats(self) -> list[ConnectionStats]:
        """Each connected URL's statistics, in connect order: ``transport`` is
        ``None`` over a local transport and while a URL is down."""
        return connection_stats(lib.weida_bus_connection_stats, self._h)

    def dropped(self) -> int:
        """Copies dropped."""
        return count_of(lib.weida_bus_dropped, self._h, c_uint64)

    def path(self) -> str:
        """The registered path."""
        return path_of(lib.weida_bus_path, self._h)


class Binding(BindingBase):
    """One QUIC socket serving this runtime's paths."""

    __slots__ = ()
    _Replier = Replier
    _Puller = Puller
    _Publisher = Publisher
    _Paired = Paired
    _Respondent = Respondent
    _BusMember = BusMember
    _Radio = Radio


class Runtime(RuntimeBase):
    """A runtime: owns connections; endpoints keep it alive."""

    __slots__ = ()
    _Binding = Binding
    _Requester = Requester
    _Pusher = Pusher
    _Subscriber = Subscriber
    _Paired = Paired
    _Surveyor = Surveyor
    _Dish = Dish

    def bind(self, addr: str, identity: Identity) -> Binding:
        """Binds a QUIC socket at ``"host:port"`` proving ``identity``."""
        return self._bind(addr, identity)

    def drain(self, seconds: float) -> Tuple[int, int]:
        """Waits up to ``seconds`` for finished transfers' receipts and the
        peers' consumption, then ends the runtime: ``(delivered, outstanding)``.
        Any later call raises ``RuntimeFailure``."""
        delivered, outstanding = c_uint64(), c_uint64()
        check(lib.weida_runtime_drain(self._h, deadline(seconds, "seconds"), byref(delivered), byref(outstanding)))
        return delivered.value, outstanding.value

    def shutdown(self) -> None:
        """Ends the runtime now: every connection closes, blocked calls raise
        ``Canceled``, and its factories (``bind``, ``pusher``, a binding's
        ``puller``, …) raise ``RuntimeFailure`` from then on."""
        check(lib.weida_runtime_shutdown(self._h))

