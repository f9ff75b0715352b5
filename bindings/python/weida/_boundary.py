"""The bytes boundary: arguments in, results out, return codes to exceptions.

Shared by both surfaces, so ``weida`` and ``weida.sync`` refuse the same bad
input with the same exception and copy results the same way (once per
direction: ``ctypes.string_at`` out of library memory).
"""

from __future__ import annotations

import ctypes
import math
import threading
from ctypes import byref, c_size_t, c_uint64, c_void_p
from typing import Union

from ._errors import InvalidArgument, error_for
from ._ffi import ETRUNCATED, OK, lib

#: What a payload may be.
Bytes = Union[bytes, bytearray]

_SCRATCH_BYTES = 256
_local = threading.local()


def last_error() -> str:
    """The calling thread's last failure sentence (weida_last_error)."""
    return read_text(lib.weida_last_error)


def check(rc: int) -> None:
    """Raises the exception for a failed call made on this thread."""
    if rc != OK:
        raise error_for(rc, last_error())


def bytes_arg(data: object, what: str = "payload") -> tuple[object, int]:
    """(pointer-compatible object, length) for bytes or bytearray.

    A str is refused, never encoded: no encoding is guessed. A bytearray is
    lent in place, without a copy; the library copies what it keeps.
    """
    if isinstance(data, bytes):
        return data, len(data)
    if isinstance(data, bytearray):
        n = len(data)
        return ((ctypes.c_char * n).from_buffer(data) if n else None), n
    if isinstance(data, str):
        raise TypeError(f"{what} must be bytes or bytearray, not str (encode it first; weida guesses no encoding)")
    raise TypeError(f"{what} must be bytes or bytearray, not {type(data).__name__}")


def text(value: object, what: str) -> bytes:
    """UTF-8 bytes of a str argument (path, URL, topic, filter)."""
    if isinstance(value, str):
        if "\0" in value:
            raise ValueError(f"{what} must not contain a NUL character")
        return value.encode("utf-8")
    raise TypeError(f"{what} must be str, not {type(value).__name__}")


def deadline(seconds: object, what: str) -> float:
    """A mandatory, finite, non-negative number of seconds."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"{what} must be a number of seconds, not {type(seconds).__name__}")
    s = float(seconds)
    if not math.isfinite(s) or s < 0:
        raise InvalidArgument(f"{what} must be a finite number of seconds, not negative (got {seconds!r})")
    return s


def ceiling(max_bytes: object, what: str) -> int:
    """A receive ceiling in bytes: an int, not negative, with no default."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"{what} must be an int number of bytes, not {type(max_bytes).__name__}")
    if max_bytes < 0:
        raise ValueError(f"{what} must not be negative (got {max_bytes})")
    return min(max_bytes, 2**64 - 1)


def credit(limit: object, what: str) -> int:
    """A queue credit grant: an int message count, not negative. Above
    2**64-1 it is 2**64-1, which already means every message."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"{what} must be an int number of messages, not {type(limit).__name__}")
    if limit < 0:
        raise ValueError(f"{what} must not be negative (got {limit})")
    return min(limit, 2**64 - 1)


def _scratch() -> ctypes.Array:
    buf = getattr(_local, "buf", None)
    if buf is None:
        buf = _local.buf = ctypes.create_string_buffer(_SCRATCH_BYTES)
    return buf


def read_text(fn: object, *args: object) -> str:
    """Calls a text getter ``fn(*args, buf, cap, &needed)`` and decodes it,
    growing the buffer once when the first one was too small."""
    buf = _scratch()
    needed = c_size_t()
    rc = fn(*args, buf, len(buf), byref(needed))
    if rc == ETRUNCATED:
        buf = ctypes.create_string_buffer(needed.value)
        rc = fn(*args, buf, len(buf), byref(needed))
    if fn is not lib.weida_last_error:
        check(rc)
    return buf.value.decode("utf-8", "replace")


def out_handle(fn: object, *args: object) -> int:
    """Calls ``fn(*args, &out)`` and returns the new handle."""
    out = c_uint64()
    check(fn(*args, byref(out)))
    return out.value


def out_count(fn: object, *args: object, kind: type = c_size_t) -> int:
    """Calls a counter ``fn(*args, &count)``."""
    out = kind()
    check(fn(*args, byref(out)))
    return out.value


def take_bytes(getter: object, h: int, *args: object) -> bytes:
    """Copies library-owned bytes ``getter(h, *args, &ptr, &len)`` once."""
    ptr, n = c_void_p(), c_size_t()
    check(getter(h, *args, byref(ptr), byref(n)))
    return ctypes.string_at(ptr.value, n.value) if n.value else b""


def close(h: int) -> None:
    """Releases a handle; a stale one is harmless (generation-checked)."""
    if h:
        lib.weida_close(h)

