"""The exception classes and the code -> class table (SURFACE.md §2.6).

Codes 1..26 of weida.h are the library's error kinds, one class each, in the
same order; each class's code and variant name come from the table generated
out of weida.h (_abi.py). The ABI's own failures (a bad handle, an internal fault) are
``RuntimeFailure``, as upstream reports misuse; a bad argument is
``InvalidArgument``, a ``RuntimeFailure`` that is also a ``ValueError``; a
passed deadline is ``DeadlinePassed``, a ``TimeoutError``.

Each class also derives from the built-in exception a Python caller would
catch for it (``ConnectionLost`` is a ``ConnectionError``, ``Expired`` a
``TimeoutError``, ``InvalidAddress`` a ``ValueError``, ...), so
``except ConnectionError`` works without importing weida. Every error
carries ``code``, the C code (an int, ``weida.h``'s ``enum weida_code``);
``errno`` stays the library's variant name (a str), as before.
"""

from __future__ import annotations

from ._abi import KINDS
from ._ffi import EBADHANDLE, EINTERNAL, EINVAL, ETIMEDOUT, lib

# Class name -> (code, the library's variant name), from weida.h's table.
_KIND_OF = {cls: (code, variant) for code, _c_name, variant, cls in KINDS}
# Class name -> class, as _kind makes them.
_MADE: dict[str, type] = {}


class WeidaError(Exception):
    """Base of every weida failure.

    ``code`` is the C code (``11`` for ``Rejected``, ``101`` for
    ``InvalidArgument``), ``errno`` the library's variant name (e.g.
    ``"Rejected"``; ``"Runtime"`` for :class:`RuntimeFailure`) and ``cause``
    the library's own sentence, which is also ``str(error)``.
    """

    errno: str = ""
    code: int = 0

    def __init__(self, cause: str, code: "int | None" = None) -> None:
        super().__init__(cause)
        self.cause = cause
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.cause  # OSError's own would format (errno, strerror)


def _kind(name: str, doc: str, builtin: "type | None" = None) -> type:
    """The exception class of weida.h's error kind ``name`` (its code and
    variant from the generated table), exported by ``weida``, under
    ``builtin`` too when one matches."""
    code, variant = _KIND_OF[name]
    bases = (WeidaError,) if builtin is None else (WeidaError, builtin)
    cls = type(name, bases, {"errno": variant, "code": code, "__doc__": doc, "__module__": "weida"})
    _MADE[name] = cls
    return cls


# The library's "Runtime" kind, renamed because weida.Runtime is the runtime class.
RuntimeFailure = _kind("RuntimeFailure", "The runtime failed or was used wrongly (the library's Runtime error).",
                       builtin=RuntimeError)
InvalidAddress = _kind("InvalidAddress", "An address or URL is not valid.", builtin=ValueError)
InvalidEndpointPath = _kind("InvalidEndpointPath", "An endpoint path is not valid.", builtin=ValueError)
InvalidFingerprint = _kind("InvalidFingerprint", "A fingerprint is not sha256:<64 hex>.", builtin=ValueError)
AlreadyRegistered = _kind("AlreadyRegistered", "The path already has an endpoint.")
AddressInUse = _kind("AddressInUse", "The local address is in use.", builtin=OSError)
NotConnected = _kind("NotConnected", "The endpoint has no connection.", builtin=ConnectionError)
ConnectionLost = _kind("ConnectionLost", "The connection was lost before the outcome was settled: a definite failure.",
                       builtin=ConnectionError)
Negotiation = _kind("Negotiation", "The peers could not agree on terms.")
Protocol = _kind("Protocol", "A protocol rule was broken, or a reserved value was named.")
Rejected = _kind("Rejected", "The peer refused it.")
UnknownEndpoint = _kind("UnknownEndpoint", "No endpoint is registered at that path.")
Unsupported = _kind("Unsupported", "The endpoint or the library does not support it.", builtin=NotImplementedError)
NoParkedConnection = _kind("NoParkedConnection", "No parked reverse connection.")
NoReply = _kind("NoReply", "No reply: unanswered, or a handle already spent (second reply or finish).")
Canceled = _kind("Canceled", "Canceled: the endpoint was closed or the transfer reset.")
Expired = _kind("Expired", "The send timeout expired.", builtin=TimeoutError)
Indeterminate = _kind(
    "Indeterminate",
    "The outcome is unknown: the peer may or may not have it. A sibling of ConnectionLost, never a subclass.",
)
LimitExceeded = _kind("LimitExceeded", "A limit or receive ceiling was exceeded; the payload was refused.")
DatagramsUnavailable = _kind("DatagramsUnavailable", "Datagrams are not available on this connection.")
TooLarge = _kind("TooLarge", "Too large for a datagram. ``max`` is the largest payload the connection "
                 "allowed when the failure says so, else None (no call of this binding raises it today: a "
                 "radio counts an oversize datagram in that dish's ``DishDrops.too_large``).")
TooLarge.max = None
Tls = _kind("Tls", "TLS failed.")
Untrusted = _kind("Untrusted", "The peer's key is not trusted; cause names the key that answered.")
UntrustedPrincipal = _kind("UntrustedPrincipal", "The peer's principal is not trusted.")
Io = _kind("Io", "An I/O error.", builtin=OSError)
Transport = _kind("Transport", "The transport failed.", builtin=ConnectionError)

#: C code (1..26) -> class, in weida.h's order (a kind without a class
#: above fails the import here, naming it).
BY_CODE: dict[int, type] = {code: _MADE[cls] for code, _c_name, _variant, cls in KINDS}

# The ABI's own failures that are not a library kind.
InvalidArgument = type("InvalidArgument", (RuntimeFailure, ValueError), {
    "__doc__": "A bad argument (the ABI's WEIDA_EINVAL): a RuntimeFailure that is also a ValueError.",
    "__module__": "weida", "code": EINVAL})
DeadlinePassed = type("DeadlinePassed", (WeidaError, TimeoutError), {
    "__doc__": "A deadline given to the call passed (the ABI's WEIDA_ETIMEDOUT); not a failure of the peer.",
    "__module__": "weida", "errno": "TimedOut", "code": ETIMEDOUT})

#: Every class, for __all__.
CLASSES = ("WeidaError",) + tuple(cls.__name__ for cls in BY_CODE.values()) + ("InvalidArgument", "DeadlinePassed")

# ABI-only codes that are misuse of the boundary rather than a library kind.
_MISUSE = (EBADHANDLE, EINTERNAL)


def error_for(code: int, cause: str) -> Exception:
    """The exception for a failed call's code and the library's sentence;
    its ``code`` is ``code``."""
    if not cause:
        cause = lib.weida_strerror(code).decode("utf-8", "replace")
    if code == ETIMEDOUT:
        return DeadlinePassed(cause)
    if code == EINVAL:
        return InvalidArgument(cause)
    cls = BY_CODE.get(code)
    if cls is None:
        if code not in _MISUSE:
            cause = f"unexpected code {code}: {cause}"
        return RuntimeFailure(cause, code)
    return cls(cause)
