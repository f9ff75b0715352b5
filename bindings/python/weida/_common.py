"""What ``weida.Runtime``/``weida.sync.Runtime`` and the two ``Binding``
classes share: the calls that never wait. Each surface subclasses these and
names, in class attributes, the endpoint classes its factories return."""

from __future__ import annotations

import ctypes
from ctypes import byref
from typing import Any, Optional, Tuple

from ._boundary import check, out_count, out_handle, read_text, text
from ._errors import RuntimeFailure
from ._ffi import BindOpts, DropCounts, EndpointOpts, RuntimeOpts, lib
from ._handle import Handle
from ._guarantees import guarantee_sets
from ._logging import install as _install_logging
from ._values import Identity, Trust

_U32_MAX = 2**32 - 1


def _runtime_options(worker_threads: int, datagrams: bool, path_report: bool) -> RuntimeOpts:
    if isinstance(worker_threads, bool) or not isinstance(worker_threads, int):
        raise TypeError(f"worker_threads must be an int, not {type(worker_threads).__name__}")
    if not 1 <= worker_threads <= _U32_MAX:
        raise RuntimeFailure(f"worker_threads must be at least 1 (got {worker_threads})")
    return RuntimeOpts(size=ctypes.sizeof(RuntimeOpts), worker_threads=worker_threads,
                       datagrams=1 if datagrams else 0, path_report=1 if path_report else 0)


def _new_runtime(worker_threads: int, datagrams: bool, path_report: bool, ordering: Optional[str],
                 dedup_window: Optional[float], acknowledgement: Optional[int], require: Any) -> int:
    """weida_runtime_new with the options and the guarantee sets they name;
    the library refuses what it cannot honour, naming the dimension."""
    _install_logging()  # at the "weida" logger's level now (_logging.py)
    opts = _runtime_options(worker_threads, datagrams, path_report)
    offered, required = guarantee_sets(ordering, dedup_window, acknowledgement, require)
    if offered is not None:
        opts.offered, opts.required = ctypes.pointer(offered), ctypes.pointer(required)
    return out_handle(lib.weida_runtime_new, byref(opts))


def _trust(trust: object) -> int:
    if not isinstance(trust, Trust):
        raise TypeError(f"trust must be a weida.Trust, not {type(trust).__name__}")
    return trust._h


class RuntimeBase(Handle):
    """A runtime: owns connections. Endpoints keep it alive after this object
    is gone; it stops with the last of them."""

    __slots__ = ()
    _Binding: Any
    _Requester: Any
    _Pusher: Any
    _Subscriber: Any
    _Paired: Any
    _Surveyor: Any
    _Dish: Any

    def __init__(self, worker_threads: int = 1, datagrams: bool = False, path_report: bool = False,
                 ordering: Optional[str] = None, dedup_window: Optional[float] = None,
                 acknowledgement: Optional[int] = None, require: Any = None) -> None:
        super().__init__(_new_runtime(worker_threads, datagrams, path_report, ordering, dedup_window,
                                      acknowledgement, require))

    def suppressed_duplicates(self) -> int:
        """One-way transfers this runtime read and discarded as repeats within
        its ``dedup_window`` (0 unless deduplication was agreed)."""
        return out_count(lib.weida_runtime_suppressed_duplicates, self._h, kind=ctypes.c_uint64)

    def _exit(self) -> None:
        # Leaving a ``with`` block ends the runtime, not just this reference
        # to it: endpoints still open would otherwise keep it serving.
        if self._h:
            lib.weida_runtime_shutdown(self._h)
        self.close()

    def _bind(self, addr: str, identity: Identity) -> Any:
        if not isinstance(identity, Identity):
            raise TypeError(f"identity must be a weida.Identity, not {type(identity).__name__}")
        opts = BindOpts(size=ctypes.sizeof(BindOpts))
        h = out_handle(lib.weida_bind_quic, self._h, text(addr, "addr"), identity._handle(), byref(opts))
        return self._Binding(h)

    def bind_inproc(self, bus: str) -> Any:
        """Serves this runtime's paths on the in-process bus named ``bus``:
        endpoints of any runtime in this process dial
        ``weida+inproc://<bus>/<path>``, with no socket and no TLS. The name
        is 1..256 bytes without ``@``, ``/`` or control bytes
        (``InvalidAddress``) and unique in the process (``AddressInUse``).
        Not a coroutine: nothing waits."""
        return self._Binding(out_handle(lib.weida_bind_inproc, self._h, text(bus, "bus")))

    def bind_unix(self, path: str) -> Any:
        """Serves this runtime's paths on the unix socket at ``path`` (mode
        0600), dialled as ``weida+unix://<percent-encoded path>/<path>``; a
        stale socket file is replaced, a live one is ``AddressInUse``. Peers
        are proved by the kernel: ``IncomingMeta.peer`` is ``"uid=… gid=…
        pid=…"``. An addition to SURFACE.md §2.3 (§2.7 leaves Python servers on
        unix sockets free to add). Not a coroutine: nothing waits."""
        return self._Binding(out_handle(lib.weida_bind_unix, self._h, text(path, "path")))

    def _dialler(self, fn: Any, cls: Any, trust: Trust, identity: "Optional[Identity]") -> Any:
        if identity is None:
            return cls(out_handle(fn, self._h, _trust(trust), None))
        if not isinstance(identity, Identity):
            raise TypeError(f"identity must be a weida.Identity or None, not {type(identity).__name__}")
        opts = EndpointOpts(size=ctypes.sizeof(EndpointOpts), client_identity=identity._handle())
        return cls(out_handle(fn, self._h, _trust(trust), byref(opts)))

    # Every dialling endpoint verifies servers under ``trust`` and, given
    # ``identity``, presents that key to them (a broker that lists client
    # keys needs it); without one it connects anonymously.

    def requester(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """A Req/Rep asker that verifies servers under ``trust``."""
        return self._dialler(lib.weida_runtime_requester, self._Requester, trust, identity)

    def pusher(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """A Push sender that verifies servers under ``trust``."""
        return self._dialler(lib.weida_runtime_pusher, self._Pusher, trust, identity)

    def subscriber(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """A Pub/Sub subscriber that verifies servers under ``trust``."""
        return self._dialler(lib.weida_runtime_subscriber, self._Subscriber, trust, identity)

    def pair(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """The dialling end of a PAIR."""
        return self._dialler(lib.weida_runtime_pair, self._Paired, trust, identity)

    def surveyor(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """A SURVEY asker; every survey asks every connected respondent."""
        return self._dialler(lib.weida_runtime_surveyor, self._Surveyor, trust, identity)

    def dish(self, trust: Trust, identity: "Optional[Identity]" = None) -> Any:
        """A RADIO/DISH receiver that verifies radios under ``trust``."""
        return self._dialler(lib.weida_runtime_dish, self._Dish, trust, identity)


class BindingBase(Handle):
    """One QUIC socket, in-process bus or unix socket serving the runtime's
    paths. Registrations raise
    ``AlreadyRegistered`` / ``InvalidEndpointPath``; dropping the binding
    stops serving its socket."""

    __slots__ = ()
    _Replier: Any
    _Puller: Any
    _Publisher: Any
    _Paired: Any
    _Respondent: Any
    _BusMember: Any
    _Radio: Any

    def local_addr(self) -> str:
        """The bound ``"ip:port"``, with the real port; the bus name of an
        in-process binding, the socket path of a unix one."""
        return read_text(lib.weida_binding_local_addr, self._h)

    def fingerprint(self) -> Optional[str]:
        """``"sha256:…"`` of the key this binding proves; ``None`` for an
        in-process or unix binding, which proves none."""
        return read_text(lib.weida_binding_fingerprint, self._h) or None

    def url(self, path: str) -> str:
        """The dialling URL of ``path``: a client's whole configuration."""
        return read_text(lib.weida_binding_url, self._h, text(path, "path"))

    def _register(self, fn: Any, cls: Any, path: str) -> Any:
        return cls(out_handle(fn, self._h, text(path, "path")))

    def replier(self, path: str) -> Any:
        """The Req/Rep answering endpoint at ``path``."""
        return self._register(lib.weida_binding_replier, self._Replier, path)

    def puller(self, path: str) -> Any:
        """The Push/Pull receiving endpoint at ``path``."""
        return self._register(lib.weida_binding_puller, self._Puller, path)

    def publisher(self, path: str) -> Any:
        """The Pub/Sub publishing endpoint at ``path``."""
        return self._register(lib.weida_binding_publisher, self._Publisher, path)

    def pair(self, path: str) -> Any:
        """The bound end of a PAIR at ``path``."""
        return self._register(lib.weida_binding_pair, self._Paired, path)

    def respondent(self, path: str) -> Any:
        """The SURVEY answering endpoint at ``path``."""
        return self._register(lib.weida_binding_respondent, self._Respondent, path)

    def radio(self, path: str) -> Any:
        """The RADIO endpoint at ``path``: lossy fan-out of segments to dishes."""
        return self._register(lib.weida_binding_radio, self._Radio, path)

    def bus(self, path: str, trust: Trust) -> Any:
        """A BUS member bound at ``path`` that dials other members under ``trust``."""
        h = out_handle(lib.weida_binding_bus, self._h, text(path, "path"), _trust(trust), None)
        return self._BusMember(h)


def path_of(fn: Any, h: int) -> str:
    """An endpoint's registered path."""
    return read_text(fn, h)


def count_of(fn: Any, h: int, kind: Any = ctypes.c_size_t) -> int:
    """An endpoint counter."""
    return out_count(fn, h, kind=kind)


def drop_counts(h: int, topic: str) -> Optional[Tuple[int, int, int, int]]:
    """A publisher's drops on one topic by cause, or None (Publisher.dropped_on)."""
    counts = DropCounts(size=ctypes.sizeof(DropCounts))
    found = ctypes.c_int()
    check(lib.weida_publisher_dropped_on(h, text(topic, "topic"), byref(counts), byref(found)))
    if not found.value:
        return None
    return (counts.total, counts.subscriber_budget, counts.subscriber_queue, counts.no_parked_connection)
