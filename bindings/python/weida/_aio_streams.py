"""Streamed transfers on the asyncio surface: for payloads too large to
hold, and for exchanges whose halves are written and read in pieces."""

from __future__ import annotations

import ctypes
from typing import Callable, Optional, Tuple

from . import _loop
from ._aio_cursors import Cursors, Reporter
from ._boundary import Bytes, bytes_arg, ceiling, check, deadline, out_count, out_handle, read_text
from ._ffi import lib
from ._handle import Handle
from ._values import IncomingMeta, payload_value

# A read allocates its piece buffer up front; a piece may be shorter than
# max_bytes, so a huge ceiling need not mean a huge buffer.
_MAX_PIECE = 1 << 20


class OutgoingStream(Handle):
    """An outgoing streamed transfer. Dropping it unfinished resets it: the
    reader sees ``Canceled``, never a complete payload."""

    __slots__ = ()

    async def write(self, chunk: Bytes) -> None:
        """Writes payload bytes (waits for flow control)."""
        data, n = bytes_arg(chunk, "chunk")
        await _loop.call(lib.weida_ostream_write_async, (self._h, data, n), _loop.unit)

    async def finish(self) -> None:
        """Sends the end and waits for the transport receipt (the peer's QUIC
        stack has every byte: not an application ack). A second finish, or a
        write after it, raises ``NoReply``."""
        await _loop.call(lib.weida_ostream_finish_async, (self._h,), _loop.unit)

    async def cancel(self) -> None:
        """Resets the stream: the reader sees ``Canceled``."""
        check(lib.weida_ostream_cancel(self._h))

    async def cursors(self) -> Optional[Cursors]:
        """The cursors of the report this stream ordered (``open(report=…)``),
        once; ``None`` after that and when it ordered nothing."""
        h = out_handle(lib.weida_ostream_cursors, self._h)
        return Cursors(h) if h else None


class IncomingStream(Handle):
    """An incoming streamed transfer. Dropping it before the end refuses the
    rest (the sender sees ``Rejected``)."""

    __slots__ = ()

    async def read(self, max_bytes: int) -> bytes:
        """The next piece of at most ``max_bytes`` bytes; ``b""`` at the end.
        The ceiling bounds one piece, not the payload."""
        cap = min(ceiling(max_bytes, "max_bytes"), _MAX_PIECE)
        buf = ctypes.create_string_buffer(cap) if cap else None
        # buf travels as `keep`: the library writes into it until the callback.
        return await _loop.call(lib.weida_istream_read_async, (self._h, buf, cap),
                                lambda n, _: ctypes.string_at(buf, n), keep=buf, end=b"")

    async def collect(self, max_bytes: int) -> bytes:
        """The rest of the payload, whole, under ``max_bytes`` (else ``LimitExceeded``)."""
        return await _loop.call(lib.weida_istream_collect_async,
                                (self._h, ceiling(max_bytes, "max_bytes")), payload_value, owned=1)

    async def reporter(self) -> Optional[Reporter]:
        """The ``Reporter`` of the report the sender ordered, once; ``None``
        after that and when it ordered nothing."""
        h = out_handle(lib.weida_istream_reporter, self._h)
        return Reporter(h, self) if h else None


def istream_with_meta(parent: Handle) -> Callable[[int, int], Tuple[IncomingStream, IncomingMeta]]:
    """Converter: an istream handle a, kept with ``parent``, and its meta."""
    return lambda a, b: (IncomingStream(a, parent), IncomingMeta._read(a))


class Reply(Handle):
    """The reply half of an exchange opened with ``Requester.open``."""

    __slots__ = ()

    async def recv(self) -> Tuple[IncomingStream, IncomingMeta]:
        """Waits for the reply. The replier's refusal is its exception; a
        connection lost after the request's end is ``Indeterminate``, never
        ``ConnectionLost``."""
        return await _loop.call(lib.weida_reply_recv_async, (self._h,), istream_with_meta(self), owned=1)


class FanOut(Handle):
    """One streamed publication to the subscribers that matched when it was
    opened. Dropping it unfinished cancels every copy."""

    __slots__ = ("topic",)

    def __init__(self, h: int, publisher: Handle) -> None:
        super().__init__(h, publisher)
        self.topic: str = read_text(lib.weida_fanout_topic, h)  #: the topic published

    async def write_within(self, chunk: Bytes, seconds: float) -> int:
        """Writes ``chunk`` to every remaining copy, waiting up to ``seconds``
        for a subscriber without room, which then loses its copy. Returns the
        copies left. The budget bounds a chunk, not the payload."""
        data, n = bytes_arg(chunk, "chunk")
        secs = deadline(seconds, "seconds")
        return await _loop.call(lib.weida_fanout_write_within_async, (self._h, data, n, secs), _loop.first)

    async def write_now(self, chunk: Bytes) -> int:
        """Writes ``chunk`` without waiting: a subscriber without room now
        loses its copy. Returns the copies left."""
        data, n = bytes_arg(chunk, "chunk")
        return out_count(lib.weida_fanout_write_now, self._h, data, n)

    async def subscribers(self) -> int:
        """Copies still intact."""
        return out_count(lib.weida_fanout_subscribers, self._h)

    async def finish(self) -> int:
        """Ends every copy; returns how many subscribers got all of it. A
        second finish raises ``NoReply``."""
        return out_count(lib.weida_fanout_finish, self._h)
