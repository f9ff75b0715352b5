"""The base of every object that holds a C handle."""

from __future__ import annotations

from ._boundary import close


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

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library goes with the process
            pass

    def __repr__(self) -> str:
        state = "closed" if not self._h else f"handle={self._h:#x}"
        return f"<{type(self).__module__}.{type(self).__qualname__} {state}>"
