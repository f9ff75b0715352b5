"""The asyncio ``Runtime`` and ``Binding`` (SURFACE.md §2.3)."""

from __future__ import annotations

from typing import Tuple

from . import _loop
from ._aio_patterns import Publisher, Puller, Pusher, Replier, Requester, Subscriber
from ._aio_peers import BusMember, Paired, Respondent, Surveyor
from ._aio_radio import Dish, Radio
from ._boundary import deadline
from ._common import BindingBase, RuntimeBase
from ._ffi import lib
from ._values import Identity


class Binding(BindingBase):
    """One QUIC socket serving this runtime's paths (from ``Runtime.bind``).
    Registrations raise ``AlreadyRegistered`` / ``InvalidEndpointPath``;
    dropping the binding stops serving its socket."""

    __slots__ = ()
    _Replier = Replier
    _Puller = Puller
    _Publisher = Publisher
    _Paired = Paired
    _Respondent = Respondent
    _BusMember = BusMember
    _Radio = Radio


class Runtime(RuntimeBase):
    """A runtime: owns connections. ``Runtime(worker_threads=1,
    datagrams=False, path_report=False)``; every object obtained from it
    keeps it alive. Not an exception class, despite the library's error kind
    of the same name (that one is ``RuntimeFailure``)."""

    __slots__ = ()
    _Binding = Binding
    _Requester = Requester
    _Pusher = Pusher
    _Subscriber = Subscriber
    _Paired = Paired
    _Surveyor = Surveyor
    _Dish = Dish

    async def bind(self, addr: str, identity: Identity) -> Binding:
        """Binds a QUIC socket at ``"host:port"`` (port 0: the kernel chooses)
        proving ``identity``."""
        return self._bind(addr, identity)

    async def drain(self, seconds: float) -> Tuple[int, int]:
        """Waits up to ``seconds`` for finished transfers' receipts and the
        peers' consumption; returns ``(delivered, outstanding)``. The C
        library's drain ends the runtime afterwards, so this one does too."""
        return await _loop.call(lib.weida_runtime_drain_async, (self._h, deadline(seconds, "seconds")),
                                _loop.pair)
