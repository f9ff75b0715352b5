"""The asyncio endpoint classes (SURFACE.md §2.3): one per role.

A coroutine issues its C ``_async`` call when first awaited and completes
through the bridge in ``_loop``; calls that never wait are plain methods.
No per-call timeouts: ``asyncio.wait_for`` is the timeout, and cancelling a
weida coroutine cancels the library operation and resets its streams.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional, Tuple

from . import _loop
from ._aio_cursors import Cursors, Reporter, open_ordering, reporting_value, send_ordering
from ._aio_streams import FanOut, IncomingStream, OutgoingStream, Reply, istream_with_meta
from ._boundary import Bytes, out_handle, text
from ._common import count_of, drop_counts
from ._cursors import PROGRESS
from ._ffi import lib
from ._handle import Handle
from ._roles import (
    PublisherBase, PullerBase, PusherBase, ReplierBase, RequestBase, RequesterBase, SubscriberBase,
)
from ._values import IncomingMeta, msg_value, payload_value


def ostream_value(parent: Handle) -> Callable[[int, int], OutgoingStream]:
    """An ostream handle a, kept with ``parent``."""
    return lambda a, b: OutgoingStream(a, parent)


async def connect(fn: object, h: int, url: str) -> None:
    """Awaits a dialling endpoint's ``connect`` (the same for every role)."""
    await _loop.call(fn, (h, text(url, "url")), _loop.unit)


class Requester(RequesterBase):
    """The asking side of Req/Rep: dials repliers, round-robin."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials ``url`` and adds it to the round-robin; returns once negotiated.
        A key the trust does not accept raises ``Untrusted`` naming it."""
        await connect(lib.weida_requester_connect_async, self._h, url)

    async def request(self, payload: Bytes, max_reply_bytes: int) -> bytes:
        """One whole request and its whole reply (under ``max_reply_bytes``)."""
        args = self._request_args(payload, max_reply_bytes)
        return await _loop.call(lib.weida_requester_request_async, args, payload_value, owned=1)

    async def open(self) -> Tuple[OutgoingStream, Reply]:
        """A streamed exchange: write the request, finish it, then ``Reply.recv()``."""
        return await _loop.call(lib.weida_requester_open_async, (self._h,),
                                lambda a, b: (OutgoingStream(a, self), Reply(b, self)), owned=2)


class Request(RequestBase):
    """One accepted request owing one answer. ``payload`` and ``meta`` were
    read on accept. Dropping it unanswered sends NO_REPLY to the asker."""

    __slots__ = ("payload", "meta")
    payload: Bytes  #: the request, whole
    meta: IncomingMeta  #: what arrived with it

    def __init__(self, h: int, parent: Handle) -> None:
        super().__init__(h, parent)
        self.payload, self.meta = self._read(h)

    async def reply(self, payload: Bytes) -> None:
        """The whole reply, once; a second answer raises ``NoReply``."""
        await _loop.call(lib.weida_request_reply_async, self._payload_args(payload), _loop.unit)

    async def refuse(self) -> None:
        """Answers with a refusal: the asker sees ``Rejected``."""
        self._refuse()


def request_value(parent: Handle) -> Callable[[int, int], Request]:
    """A request handle a, kept with ``parent``."""
    return lambda a, b: Request(a, parent)


class Replier(ReplierBase):
    """The answering side of Req/Rep, registered at a path."""

    __slots__ = ()

    async def accept(self, max_bytes: int) -> Request:
        """The next request, its payload read whole under ``max_bytes`` (a
        larger one is refused, the asker sees the refusal, and skipped)."""
        return await _loop.call(lib.weida_replier_accept_async, self._ceiling_args(max_bytes),
                                request_value(self), owned=1)


class Pusher(PusherBase):
    """The sending side of Push/Pull."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials ``url``; returns once negotiated."""
        await connect(lib.weida_pusher_connect_async, self._h, url)

    async def send(self, payload: Bytes, report: Optional[Iterable[int]] = None,
                   mode: int = PROGRESS) -> Optional[Cursors]:
        """One whole message; returns once it is written with its end (or
        kept in the outbox while no connection is live). Not an application ack.

        ``report`` (levels, e.g. ``[PROCESSED]``) orders a report from the
        puller in ``mode`` (``PROGRESS`` or ``FINAL_ONLY``) and returns its
        ``Cursors`` (``None`` for an empty order). Such a send bypasses the
        outbox: the report belongs to the connection the message travels, so
        with no live connection it waits for one. A reserved level (6..15) or
        an unknown mode raises ``Protocol`` before anything is sent."""
        return await send_ordering(lib.weida_pusher_send_async, lib.weida_pusher_send_reporting_async,
                                   self._h, payload, report, mode, lib.weida_pusher_try_send)

    async def open(self, report: Optional[Iterable[int]] = None, mode: int = PROGRESS) -> OutgoingStream:
        """A streamed message: write it in pieces, then finish. ``report`` and
        ``mode`` order a report as ``send`` does; ``OutgoingStream.cursors()``
        hands out its cursors."""
        return await open_ordering(lib.weida_pusher_open_async, lib.weida_pusher_open_reporting_async,
                                   self._h, report, mode, ostream_value(self))


class Puller(PullerBase):
    """The receiving side of Push/Pull, registered at a path."""

    __slots__ = ()

    async def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes`` (else ``LimitExceeded``
        and the message is refused)."""
        return await _loop.call(lib.weida_puller_recv_async, self._ceiling_args(max_bytes), msg_value, owned=1)

    async def recv_stream(self) -> Tuple[IncomingStream, IncomingMeta]:
        """The next message unread, for payloads too large to hold."""
        return await _loop.call(lib.weida_puller_recv_stream_async, (self._h,), istream_with_meta(self), owned=1)

    async def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        pusher ordered (``None`` when it ordered none). Report through it once
        the message is handled, then finish it."""
        return await _loop.call(lib.weida_puller_recv_reporting_async,
                                self._ceiling_args(max_bytes), reporting_value(self), owned=2)


class Publisher(PublisherBase):
    """The publishing side of Pub/Sub. Nothing here waits for a subscriber."""

    __slots__ = ()

    def open(self, topic: str) -> FanOut:
        """A streamed publication to the subscribers matching now."""
        return FanOut(out_handle(lib.weida_publisher_open, self._h, text(topic, "topic")), self)

    def filter_count(self) -> int:
        """Distinct filters across subscribers."""
        return count_of(lib.weida_publisher_filter_count, self._h)

    def dropped_on(self, topic: str) -> Optional[Tuple[int, int, int, int]]:
        """``(total, subscriber_budget, subscriber_queue, no_parked_connection)``
        for one topic, or ``None`` when none was counted for it."""
        return drop_counts(self._h, topic)


class Subscriber(SubscriberBase):
    """The subscribing side of Pub/Sub: dials publishers, receives the
    copies whose topic matches one of its filters.

    It is also a queue's consumer (``weida broker``): subscribe to the
    queue's path, ``grant`` credit, receive with ``recv_reporting`` and
    settle each message by reporting ``PROCESSED`` at its length and
    finishing the reporter. A message given back (``PROCESSED`` below its
    length, then ``finish``), or held by a consumer that goes away, comes
    again with ``meta.delivery_attempt`` above 1: delivery is at least once."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials a publisher; returns once negotiated."""
        await connect(lib.weida_subscriber_connect_async, self._h, url)

    async def subscribe(self, filter: str) -> None:
        """Adds a filter (``""`` and ``"#"`` take every topic); one the
        library rejects raises ``Protocol``. The publisher applies it shortly
        after this returns."""
        await _loop.call(lib.weida_subscriber_subscribe_async, self._filter_args(filter), _loop.unit)

    async def unsubscribe(self, filter: str) -> None:
        """Removes a filter."""
        await _loop.call(lib.weida_subscriber_unsubscribe_async, self._filter_args(filter), _loop.unit)

    async def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next copy, whole, under ``max_bytes``; ``meta.topic`` names its topic."""
        return await _loop.call(lib.weida_subscriber_recv_async, self._ceiling_args(max_bytes), msg_value, owned=1)

    async def recv_stream(self) -> Tuple[IncomingStream, IncomingMeta]:
        """The next copy unread (a streamed fan-out)."""
        return await _loop.call(lib.weida_subscriber_recv_stream_async, (self._h,), istream_with_meta(self), owned=1)

    async def grant(self, limit: int) -> None:
        """Sets a queue's credit: ``limit`` is the total number of messages
        each subscription (one per filter per connection) accepts since it
        was made — absolute, not a delta, so a repeated grant changes
        nothing. Credit starts at 0, so a queue delivers nothing before the
        first grant; to take n more, grant what was received plus n. A grant
        not above ``granted()`` is ignored (credit never drops). Later
        connections get it too, but a redial makes new subscriptions that
        start over, so up to ``limit`` may come again there. A publisher
        that is not a queue ignores credit."""
        await _loop.call(lib.weida_subscriber_grant_async, self._grant_args(limit), _loop.unit)

    async def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        sender ordered, or ``None``. A queue's delivery always orders
        ``PROCESSED``: report it at ``len(payload)`` once the message is
        handled, then ``finish`` — until then the queue holds it unsettled.
        To give it back, report ``PROCESSED`` at 0 and finish. (A reporter
        closed with nothing reported holds the message until the
        subscription or connection ends.) A payload above ``max_bytes``
        raises ``LimitExceeded`` and is given back at once."""
        return await _loop.call(lib.weida_subscriber_recv_reporting_async,
                                self._ceiling_args(max_bytes), reporting_value(self), owned=2)

    def peer_count(self) -> int:
        """Live publisher connections: the only sign a publisher is gone."""
        return count_of(lib.weida_subscriber_peer_count, self._h)

    def filter_count(self) -> int:
        """Filters held."""
        return count_of(lib.weida_subscriber_filter_count, self._h)
