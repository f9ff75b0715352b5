"""Local transports' one addition to a message's meta: the principal the
kernel proved for a unix socket peer (``WEIDA_META_LOCAL_PEER``), which
``IncomingMeta.peer`` reports where a QUIC peer would show its key."""

from __future__ import annotations

from ctypes import byref, c_int, c_size_t, create_string_buffer
from typing import Optional

from . import _ffi
from ._boundary import check
from ._ffi import lib


def local_peer(h: int) -> Optional[str]:
    """``"uid=… gid=… pid=…"`` of a msg, request or istream handle's unix
    peer; None over QUIC and in process."""
    present = c_int()
    needed = c_size_t()
    buf = create_string_buffer(64)
    rc = lib.weida_meta_text(h, _ffi.META_LOCAL_PEER, buf, len(buf), byref(needed), byref(present))
    if rc == _ffi.ETRUNCATED:
        buf = create_string_buffer(needed.value)
        rc = lib.weida_meta_text(h, _ffi.META_LOCAL_PEER, buf, len(buf), byref(needed), byref(present))
    check(rc)
    return buf.value.decode("utf-8", "replace") if present.value else None
