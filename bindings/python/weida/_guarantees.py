"""A runtime's guarantee sets from ``Runtime(ordering=..., dedup_window=...,
acknowledgement=..., require=...)``, as the C library's weida_guarantees_t.

The keywords name levels; they do not judge them. Whether a set is well
formed and whether the library honours it is decided by weida_runtime_new,
whose refusal names the dimension. This module refuses only what it cannot
express: an unknown name, a value of the wrong type, a ``require`` naming
a dimension the keywords left unset.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any, Optional, Tuple

from ._errors import InvalidArgument
from ._ffi import Guarantees

#: ``ordering=`` values and their C levels (enum weida_ordering).
ORDERINGS = {"none": 0, "detect": 1, "reassemble": 2}
#: The dimensions ``require`` may name.
DIMENSIONS = ("ordering", "deduplication", "acknowledgement")


def guarantee_sets(ordering: Optional[str], dedup_window: Optional[float], acknowledgement: Optional[int],
                   require: Any) -> Tuple[Optional[Guarantees], Optional[Guarantees]]:
    """(offered, required), or (None, None) for core (nothing asked)."""
    if ordering is None and dedup_window is None and acknowledgement is None and require is None:
        return None, None
    offered = Guarantees(size=ctypes.sizeof(Guarantees))
    given = set()
    if ordering is not None:
        offered.ordering = _ordering(ordering)
        given.add("ordering")
    if dedup_window is not None:
        offered.deduplication, offered.dedup_window_ms = 1, _window_ms(dedup_window)
        given.add("deduplication")
    if acknowledgement is not None:
        if isinstance(acknowledgement, bool) or not isinstance(acknowledgement, int):
            raise TypeError(f"acknowledgement must be a level (an int such as weida.ACCEPTED), "
                            f"not {type(acknowledgement).__name__}")
        if not 0 <= acknowledgement < 2**31:
            raise InvalidArgument(f"acknowledgement: {acknowledgement} is not a level")
        offered.acknowledgement = acknowledgement
        given.add("acknowledgement")
    required = Guarantees()
    ctypes.memmove(ctypes.byref(required), ctypes.byref(offered), ctypes.sizeof(Guarantees))
    for dimension in set(DIMENSIONS) - _required(require, given):
        _reset(required, dimension)
    return offered, required


def _ordering(value: object) -> int:
    if not isinstance(value, str):
        raise TypeError(f"ordering must be a str ('detect' or 'reassemble'), not {type(value).__name__}")
    level = ORDERINGS.get(value)
    if level is None:
        raise InvalidArgument(f"ordering: {value!r} is not one of 'none', 'detect', 'reassemble'")
    return level


def _window_ms(seconds: object) -> int:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"dedup_window must be a number of seconds, not {type(seconds).__name__}")
    ms = float(seconds) * 1000
    if not math.isfinite(ms) or ms < 1 or ms >= 2**63:
        raise InvalidArgument(f"dedup_window must be a finite number of seconds, at least 0.001 (got {seconds!r})")
    return round(ms)


def _required(require: Any, given: set) -> set:
    """The dimensions required: every one given, or those ``require`` names."""
    if require is None:
        return given
    if isinstance(require, str) or not hasattr(require, "__iter__"):
        raise TypeError(f"require must be a collection of dimension names such as {{'ordering'}}, "
                        f"not {type(require).__name__}")
    names = set(require)
    for name in names:
        if name not in DIMENSIONS:
            raise InvalidArgument(f"require: {name!r} is not a dimension ({', '.join(DIMENSIONS)})")
        if name not in given:
            raise InvalidArgument(f"require names {name}, which no keyword sets (give {name}=...)")
    return names


def _reset(g: Guarantees, dimension: str) -> None:
    if dimension == "deduplication":
        g.deduplication, g.dedup_window_ms = 0, 0
    else:
        setattr(g, dimension, 0)
