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

from ._boundary import Bytes, check, deadline, out_count, out_handle, text
from ._common import BindingBase, RuntimeBase
from ._cursors import PROGRESS
from ._errors import RuntimeFailure
from ._handle import Handle
from ._interrupt import lib
from ._roles import (
    BusMemberBase, Endpoint, PairedBase, PublisherBase, PullerBase, PusherBase, ReplierBase, RequestBase,
    RequesterBase, RespondentBase, SubscriberBase, SurveyorBase,
)
from ._sync_cursors import Cursors, Reporter, recv_reporting, send_ordering
from ._sync_radio import Dish, Radio, Segment
from ._values import Identity, IncomingMeta, Survey, take_msg, take_payload

__all__ = [
    "Runtime", "Binding", "Requester", "Pusher", "Subscriber", "Replier", "Request", "Puller",
    "Publisher", "Paired", "Surveyor", "Respondent", "BusMember", "Radio", "Segment", "Dish", "Cursors",
    "Reporter",
]


def _connect(fn: object, h: int, url: str) -> None:
    check(fn(h, text(url, "url")))


def _recv(fn: object, endpoint: Endpoint, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
    return take_msg(out_handle(fn, *endpoint._ceiling_args(max_bytes)))


class Requester(RequesterBase):
    """The asking side of Req/Rep: dials repliers, round-robin."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials ``url``; returns once negotiated (``Untrusted`` names a wrong key)."""
        _connect(lib.weida_requester_connect, self._h, url)

    def request(self, payload: Bytes, max_reply_bytes: int) -> bytes:
        """One whole request and its whole reply (under ``max_reply_bytes``)."""
        return take_payload(out_handle(lib.weida_requester_request, *self._request_args(payload, max_reply_bytes)))


class Request(RequestBase):
    """One accepted request owing one answer. ``payload`` and ``meta`` raise
    ``RuntimeFailure`` once it is answered (the request is spent). Dropping
    it unanswered sends NO_REPLY to the asker."""

    __slots__ = ("_payload", "_meta", "_spent")

    def __init__(self, h: int, parent: Handle) -> None:
        super().__init__(h, parent)
        self._payload, self._meta = self._read(h)
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
        check(lib.weida_request_reply(*self._payload_args(payload)))
        self._spent = True

    def refuse(self) -> None:
        """Answers with a refusal: the asker sees ``Rejected``."""
        self._refuse()
        self._spent = True


class Replier(ReplierBase):
    """The answering side of Req/Rep, registered at a path."""

    __slots__ = ()

    def accept(self, max_bytes: int) -> Request:
        """The next request, read whole under ``max_bytes``."""
        return Request(out_handle(lib.weida_replier_accept, *self._ceiling_args(max_bytes)), self)


class Pusher(PusherBase):
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


class Puller(PullerBase):
    """The receiving side of Push/Pull, registered at a path."""

    __slots__ = ()

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes`` (else ``LimitExceeded``)."""
        return _recv(lib.weida_puller_recv, self, max_bytes)

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        pusher ordered (``None`` when it ordered none)."""
        return recv_reporting(lib.weida_puller_recv_reporting, self, max_bytes)


class Publisher(PublisherBase):
    """The publishing side of Pub/Sub (whole payloads only)."""

    __slots__ = ()


class Subscriber(SubscriberBase):
    """The subscribing side of Pub/Sub, and a queue's consumer: ``grant``
    credit, ``recv_reporting``, report ``PROCESSED`` at the payload's length
    and ``finish`` (see ``weida.Subscriber``)."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials a publisher; returns once negotiated."""
        _connect(lib.weida_subscriber_connect, self._h, url)

    def subscribe(self, filter: str) -> None:
        """Adds a filter; one the library rejects raises ``Protocol``."""
        check(lib.weida_subscriber_subscribe(*self._filter_args(filter)))

    def unsubscribe(self, filter: str) -> None:
        """Removes a filter."""
        check(lib.weida_subscriber_unsubscribe(*self._filter_args(filter)))

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next copy, whole, under ``max_bytes``."""
        return _recv(lib.weida_subscriber_recv, self, max_bytes)

    def grant(self, limit: int) -> None:
        """Sets a queue's credit to ``limit`` messages per subscription in
        total, absolute and never lowered (a grant not above ``granted()``
        is ignored); credit starts at 0. To take n more, grant what was
        received plus n."""
        check(lib.weida_subscriber_grant(*self._grant_args(limit)))

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        sender ordered, or ``None``. A queue holds its delivery unsettled
        until ``PROCESSED`` is reported at ``len(payload)`` and the reporter
        finished; ``PROCESSED`` at 0, then ``finish``, gives it back."""
        return recv_reporting(lib.weida_subscriber_recv_reporting, self, max_bytes)


class Paired(PairedBase):
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
        return _recv(lib.weida_paired_recv, self, max_bytes)

    def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        peer ordered, or ``None``."""
        return recv_reporting(lib.weida_paired_recv_reporting, self, max_bytes)


class Surveyor(SurveyorBase):
    """The asking side of SURVEY."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Adds a respondent."""
        _connect(lib.weida_surveyor_connect, self._h, url)

    def survey(self, payload: Bytes, deadline_seconds: float, max_reply_bytes: int) -> Survey:
        """Asks every respondent, collecting replies until the deadline;
        silence is counted, not raised."""
        args = self._survey_args(payload, deadline_seconds, max_reply_bytes)
        return Survey._take(out_handle(lib.weida_surveyor_survey, *args))


class Respondent(RespondentBase):
    """The answering side of SURVEY, registered at a path."""

    __slots__ = ()

    def accept(self, max_bytes: int) -> Request:
        """The next question as a ``Request``."""
        return Request(out_handle(lib.weida_respondent_accept, *self._ceiling_args(max_bytes)), self)


class BusMember(BusMemberBase):
    """A BUS member: bound and dialling at once; a send never reaches the sender."""

    __slots__ = ()

    def connect(self, url: str) -> None:
        """Dials another member."""
        _connect(lib.weida_bus_connect, self._h, url)

    def send(self, payload: Bytes) -> int:
        """One copy to every live member; returns members reached."""
        return out_count(lib.weida_bus_send, *self._payload_args(payload))

    def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes``."""
        return _recv(lib.weida_bus_recv, self, max_bytes)


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

