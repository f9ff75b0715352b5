"""weida: QUIC-native messaging — the asyncio surface.

``import weida`` for coroutines, ``import weida.sync`` for blocking calls;
both sit on the same C library (bundled ``libweida.so``) through ctypes,
with the GIL released during every C call. A binding only converts
arguments, holds handles and shapes futures: the protocol lives in the
library.

Rules that shape every call (SURFACE.md §2.1): every receive takes a ceiling
in bytes with no default; payloads are ``bytes`` or ``bytearray`` (a ``str``
raises ``TypeError``); there are no per-call timeouts (``asyncio.wait_for``
is the timeout, and cancelling a weida coroutine cancels the library
operation and resets its streams); deadlines are finite, non-negative float
seconds (else ``RuntimeFailure``); work starts at the first ``await``; every
object keeps its runtime alive.

Completion reports: ``send(payload, report=[PROCESSED])`` on a ``Pusher`` or
``Paired`` returns ``Cursors``; the receiver's ``recv_reporting(max_bytes)``
hands over a ``Reporter``; read the cursors with
``while (s := await cursors.changed()) is not None:``. Levels are plain ints
(``TRANSPORT_RECEIPT`` … ``PROCESSED``, and the application's own from
``APPLICATION_FLOOR``); modes are ``PROGRESS`` and ``FINAL_ONLY``.

Do not call ``weida.sync`` from the thread running an asyncio event loop: a
blocking call stalls that loop (and every weida coroutine on it) until it
returns. The library itself refuses a blocking call made from its own
completion threads (``RuntimeFailure``).

The process must not ``fork()`` after the library is loaded unless the child
only ``exec``s: ``multiprocessing`` must use the ``spawn`` start method.
"""

from __future__ import annotations

from ._aio_cursors import Cursors, Reporter
from ._aio_patterns import Publisher, Puller, Pusher, Replier, Request, Requester, Subscriber
from ._aio_peers import BusMember, Paired, Respondent, Surveyor
from ._aio_radio import Dish, Radio, Segment
from ._aio_runtime import Binding, Runtime
from ._aio_streams import FanOut, IncomingStream, OutgoingStream, Reply
from ._cursors import (
    ACCEPTED, APPLICATION_FLOOR, FINAL_ONLY, PROCESSED, PROGRESS, REPLICATED, STORED, TRANSPORT_RECEIPT,
)
from ._errors import (
    AddressInUse, AlreadyRegistered, Canceled, ConnectionLost, DatagramsUnavailable, DeadlinePassed, Expired,
    Indeterminate, InvalidAddress, InvalidArgument, InvalidEndpointPath, InvalidFingerprint, Io, LimitExceeded,
    Negotiation, NoParkedConnection, NoReply, NotConnected, Protocol, Rejected, RuntimeFailure,
    TooLarge, Tls, Transport, UnknownEndpoint, Unsupported, Untrusted, UntrustedPrincipal,
    WeidaError,
)
from ._ffi import lib as _lib
from ._logging import refresh_logging
from ._radio import DishDrops
from ._stats import ConnectionStats, PathStats, RemoteStats, TransportStats, UdpCounts
from ._values import Identity, IncomingMeta, Survey, Trust

__version__ = "0.1.0.dev0"

#: The wire protocol version.
VERSION: int = _lib.weida_wire_version()
#: The QUIC ALPN.
ALPN: bytes = _lib.weida_alpn()

# The completion levels and report modes (SURFACE.md §2.2) live in
# _cursors: plain ints, since the level space is open above
# APPLICATION_FLOOR, so there is no enum class.

__all__ = [
    # constants
    "VERSION", "ALPN", "TRANSPORT_RECEIPT", "ACCEPTED", "STORED", "REPLICATED", "PROCESSED",
    "APPLICATION_FLOOR", "PROGRESS", "FINAL_ONLY",
    # logging (the "weida" logger)
    "refresh_logging",
    # asyncio classes
    "Runtime", "Binding", "Requester", "Replier", "Request", "Pusher", "Puller", "Publisher",
    "FanOut", "Subscriber", "Paired", "Surveyor", "Respondent", "BusMember", "OutgoingStream",
    "IncomingStream", "Reply", "Cursors", "Reporter", "Radio", "Segment", "Dish",
    # values shared with weida.sync
    "Trust", "Identity", "IncomingMeta", "Survey", "DishDrops",
    "ConnectionStats", "TransportStats", "PathStats", "UdpCounts", "RemoteStats",
    # exceptions
    "WeidaError", "RuntimeFailure", "InvalidAddress", "InvalidEndpointPath", "InvalidFingerprint",
    "AlreadyRegistered", "AddressInUse", "NotConnected", "ConnectionLost", "Negotiation", "Protocol",
    "Rejected", "UnknownEndpoint", "Unsupported", "NoParkedConnection", "NoReply", "Canceled",
    "Expired", "Indeterminate", "LimitExceeded", "DatagramsUnavailable", "TooLarge", "Tls",
    "Untrusted", "UntrustedPrincipal", "Io", "Transport", "InvalidArgument", "DeadlinePassed",
]
