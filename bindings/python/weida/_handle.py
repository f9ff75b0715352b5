"""The base of every object that holds a C handle."""

from __future__ import annotations

from typing import TypeVar

from ._boundary import close

_H = TypeVar("_H", bound="Handle")


class Handle:
    """Holds one library handle and releases it when collected or closed.

    Releasing follows the library's drop semantics: an endpoint wakes its
    blocked calls with ``Canceled``, an unanswered request sends NO_REPLY, an
    unfinished stream is reset. The runtime stays alive while any handle
    obtained from it is open, whatever the order of release; a stream,
    reply, request or fan-out also keeps the endpoint it came from.
    """

    __slots__ = ("_h", "_parent", "__weakref__")

    def __init__(self, h: int, parent: "Handle | None" = None) -> None:
        self._h = h
        # What this object came from (a fan-out's publisher, a stream's
        # endpoint): kept alive while this is, so a temporary parent, as in
        # ``binding.publisher(p).open(t)``, does not close it underneath.
        self._parent = parent

    def close(self) -> None:
        """Releases the handle now (idempotent); later calls raise RuntimeFailure."""
        h, self._h = self._h, 0
        close(h)

    # ``with`` and ``async with`` on every handle: leaving the block
    # releases it as close() does (a Runtime also shuts down).
    def _exit(self) -> None:
        self.close()

    def __enter__(self: "_H") -> "_H":
        return self

    def __exit__(self, *exc: object) -> None:
        self._exit()

    async def __aenter__(self: "_H") -> "_H":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._exit()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library goes with the process
            pass

    def __repr__(self) -> str:
        state = "closed" if not self._h else f"handle={self._h:#x}"
        return f"<{type(self).__module__}.{type(self).__qualname__} {state}>"
