"""The asyncio PAIR, SURVEY and BUS classes (SURFACE.md §2.3)."""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from . import _loop
from ._aio_cursors import Cursors, Reporter, open_ordering, reporting_value, send_ordering
from ._aio_patterns import connect, ostream_value, request_value
from ._aio_streams import IncomingStream, OutgoingStream, istream_with_meta
from ._boundary import Bytes
from ._cursors import PROGRESS
from ._ffi import lib
from ._roles import BusMemberBase, PairedBase, RespondentBase, SurveyorBase
from ._values import IncomingMeta, Survey, msg_value


class Paired(PairedBase):
    """One end of a PAIR: ``Runtime.pair`` dials, ``Binding.pair`` is bound.
    A second peer's transfer is refused with ``LimitExceeded``; the first
    peer is kept."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials the bound end (dialling end only, once: a second call raises
        ``LimitExceeded``)."""
        await connect(lib.weida_paired_connect_async, self._h, url)

    async def send(self, payload: Bytes, report: Optional[Iterable[int]] = None,
                   mode: int = PROGRESS) -> Optional[Cursors]:
        """One whole message to the peer. ``report`` orders a report from it
        and returns the ``Cursors``, as ``Pusher.send`` does."""
        return await send_ordering(lib.weida_paired_send_async, lib.weida_paired_send_reporting_async,
                                   self._h, payload, report, mode)

    async def open(self, report: Optional[Iterable[int]] = None, mode: int = PROGRESS) -> OutgoingStream:
        """A streamed message to the peer; ``report`` orders a report as
        ``send`` does."""
        return await open_ordering(lib.weida_paired_open_async, lib.weida_paired_open_reporting_async,
                                   self._h, report, mode, ostream_value(self))

    async def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes``."""
        return await _loop.call(lib.weida_paired_recv_async, self._ceiling_args(max_bytes), msg_value, owned=1)

    async def recv_stream(self) -> Tuple[IncomingStream, IncomingMeta]:
        """The next message unread."""
        return await _loop.call(lib.weida_paired_recv_stream_async, (self._h,), istream_with_meta(self), owned=1)

    async def recv_reporting(self, max_bytes: int) -> Tuple[bytes, IncomingMeta, Optional[Reporter]]:
        """``recv`` that also hands over the ``Reporter`` of the report the
        peer ordered, or ``None``."""
        return await _loop.call(lib.weida_paired_recv_reporting_async,
                                self._ceiling_args(max_bytes), reporting_value(self), owned=2)


def _survey(a: int, b: int) -> Survey:
    return Survey._take(a)


class Surveyor(SurveyorBase):
    """The asking side of SURVEY: every survey asks every live respondent."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Adds a respondent (peers accumulate)."""
        await connect(lib.weida_surveyor_connect_async, self._h, url)

    async def survey(self, payload: Bytes, deadline_seconds: float, max_reply_bytes: int) -> Survey:
        """Asks every respondent and collects replies (each under
        ``max_reply_bytes``) until ``deadline_seconds``. Silence is counted
        in the result, not raised; no respondent is an empty survey."""
        args = self._survey_args(payload, deadline_seconds, max_reply_bytes)
        return await _loop.call(lib.weida_surveyor_survey_async, args, _survey, owned=1)


class Respondent(RespondentBase):
    """The answering side of SURVEY, registered at a path."""

    __slots__ = ()

    async def accept(self, max_bytes: int):
        """The next question as a ``Request`` (the same class as Replier's)."""
        return await _loop.call(lib.weida_respondent_accept_async,
                                self._ceiling_args(max_bytes), request_value(self), owned=1)


class BusMember(BusMemberBase):
    """A BUS member: bound at a path and dialling other members at once.
    A send reaches every live dialled member, never the sender."""

    __slots__ = ()

    async def connect(self, url: str) -> None:
        """Dials another member; it receives this member's sends from now on."""
        await connect(lib.weida_bus_connect_async, self._h, url)

    async def send(self, payload: Bytes) -> int:
        """One copy to every live member; returns members reached. Never
        waits for a member."""
        return await _loop.call(lib.weida_bus_send_async, self._payload_args(payload), _loop.first)

    async def recv(self, max_bytes: int) -> Tuple[bytes, IncomingMeta]:
        """The next message, whole, under ``max_bytes``."""
        return await _loop.call(lib.weida_bus_recv_async, self._ceiling_args(max_bytes), msg_value, owned=1)
