"""Value classes shared by both surfaces (SURFACE.md §2.4): the same
objects, not copies, whether they came from ``weida`` or ``weida.sync``."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_char_p, c_int, c_size_t, c_uint64, create_string_buffer
from typing import Optional, Sequence

from . import _ffi
from ._boundary import bytes_arg, ceiling, check, close, deadline, out_handle, read_text, take_bytes, text
from ._cursors import read_words
from ._ffi import lib
from ._handle import Handle
from ._local import local_peer


class Trust(Handle):
    """Which servers a dialling endpoint accepts. Built by classmethods only;
    there is no default."""

    __slots__ = ()

    @classmethod
    def by_address(cls) -> "Trust":
        """Trusts only the key a dialled address names (``weida://sha256:…@host/path``)."""
        return cls(out_handle(lib.weida_trust_by_address))

    @classmethod
    def pin(cls, fingerprint: str) -> "Trust":
        """Trusts one key, ``"sha256:<64 hex>"`` (else ``InvalidFingerprint``)."""
        return cls(out_handle(lib.weida_trust_pin, text(fingerprint, "fingerprint")))

    @classmethod
    def anchor_file(cls, path: str) -> "Trust":
        """Trusts certificates chaining to the PEM certificates in ``path``."""
        return cls(out_handle(lib.weida_trust_anchor_file, text(str(path), "path")))

    @classmethod
    def pin_file(cls, path: str) -> "Trust":
        """Trusts every key the file at ``path`` lists, one fingerprint a line
        (``#`` starts a comment): what ``weida broker --trust-out`` writes for a
        cluster, so a redirect to any member is trusted."""
        return cls(out_handle(lib.weida_trust_pin_file, text(str(path), "path")))


class Identity(Handle):
    """A key and certificate a binding proves. ``from_pem_file`` reads the
    file lazily: a missing or corrupt file fails at first use, naming it."""

    __slots__ = ("_path",)

    def __init__(self, h: int, path: Optional[str] = None) -> None:  # internal
        super().__init__(h)
        self._path = path

    @classmethod
    def generate(cls) -> "Identity":
        """A fresh in-memory key (its address changes on every restart)."""
        return cls(out_handle(lib.weida_identity_generate))

    @classmethod
    def generate_for(cls, names: Sequence[str]) -> "Identity":
        """A fresh key whose certificate names hosts (DNS names or IP literals)."""
        if isinstance(names, str):
            raise TypeError("names must be a sequence of str, not one str")
        encoded = [text(n, "name") for n in names]
        array = (c_char_p * max(len(encoded), 1))(*encoded)
        return cls(out_handle(lib.weida_identity_generate_for, array, len(encoded)))

    @classmethod
    def from_pem_file(cls, path: str) -> "Identity":
        """A chain and key read from one PEM file, when first needed."""
        return cls(0, text(str(path), "path").decode("utf-8"))

    def _handle(self) -> int:
        if not self._h and self._path is not None:
            self._h = out_handle(lib.weida_identity_from_pem_file, text(self._path, "path"))
            self._path = None
        return self._h

    def fingerprint(self) -> str:
        """``"sha256:<64 hex>"`` of the public key; reads the PEM file if needed."""
        return read_text(lib.weida_identity_fingerprint, self._handle())


_TEXT_FIELDS = (
    ("endpoint", _ffi.META_ENDPOINT),
    ("content_type", _ffi.META_CONTENT_TYPE),
    ("topic", _ffi.META_TOPIC),
    ("peer", _ffi.META_PEER),
    ("traceparent", _ffi.META_TRACEPARENT),
)
_UINT_FIELDS = (
    ("content_len", _ffi.META_CONTENT_LEN),
    ("sequence", _ffi.META_SEQUENCE),
    ("missed", _ffi.META_MISSED),
    ("report_mode", _ffi.META_REPORT_MODE),
    ("report_id", _ffi.META_REPORT_ID),
    ("segment", _ffi.META_SEGMENT),
    ("layer", _ffi.META_LAYER),
    ("delivery_attempt", _ffi.META_DELIVERY_ATTEMPT),
    ("achieved", _ffi.META_ACHIEVED),
)
# What an absent field reads as, when not None: the protocol's default. A
# queue writes the delivery attempt only from the second on.
_DEFAULTS = {"delivery_attempt": 1}


class IncomingMeta:
    """What arrived with a message: 15 attributes, each ``None`` when the
    sender (or, for ``peer``, the transport) said nothing — except
    ``report`` (``[]``) and ``delivery_attempt`` (``1``). ``peer`` is the
    key the transport proved (``sha256:…``) or, over a unix socket, the
    principal the kernel proved (``uid=… gid=… pid=…``); never a header, and
    ``None`` for an anonymous or in-process peer.

    From a queue (``weida broker``): ``delivery_attempt`` is how many times
    the queue handed this message out, this one included; above 1 it means
    only "this may be a duplicate", never why earlier attempts did not
    settle. On a reply, ``achieved`` is the level the answering hop
    certifies for the request (a queue's confirm: ``ACCEPTED``, or
    ``STORED`` at its configured durability); ``None`` claims nothing beyond
    the transport receipt."""

    __slots__ = ("endpoint", "content_len", "content_type", "topic", "peer", "sequence", "missed",
                 "report", "report_mode", "report_id", "traceparent", "segment", "layer",
                 "delivery_attempt", "achieved")

    endpoint: Optional[str]
    content_len: Optional[int]
    content_type: Optional[str]
    topic: Optional[str]
    peer: Optional[str]
    sequence: Optional[int]
    missed: Optional[int]
    report: list
    report_mode: Optional[int]
    report_id: Optional[int]
    traceparent: Optional[str]
    segment: Optional[int]
    layer: Optional[int]
    delivery_attempt: int
    achieved: Optional[int]

    def __init__(self, **fields: object) -> None:
        for name in self.__slots__:
            setattr(self, name, fields.get(name, [] if name == "report" else _DEFAULTS.get(name)))

    @classmethod
    def _read(cls, h: int) -> "IncomingMeta":
        """Copies every field of a msg, request or istream handle."""
        meta = cls.__new__(cls)
        present = c_int()
        buf = create_string_buffer(256)
        needed = c_size_t()
        for name, field in _TEXT_FIELDS:
            rc = lib.weida_meta_text(h, field, buf, len(buf), byref(needed), byref(present))
            if rc == _ffi.ETRUNCATED:
                buf = create_string_buffer(needed.value)
                rc = lib.weida_meta_text(h, field, buf, len(buf), byref(needed), byref(present))
            check(rc)
            setattr(meta, name, buf.value.decode("utf-8", "replace") if present.value else None)
        if meta.peer is None:  # over a unix socket the kernel proves a uid instead of a key
            meta.peer = local_peer(h)
        value = c_uint64()
        for name, field in _UINT_FIELDS:
            check(lib.weida_meta_uint(h, field, byref(value), byref(present)))
            setattr(meta, name, value.value if present.value else _DEFAULTS.get(name))
        # The levels of the report the sender ordered ([] when none).
        (meta.report,) = read_words(lib.weida_meta_report_levels, h, 1, byref(present))
        return meta

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__
                          if getattr(self, n) not in (None, [], _DEFAULTS.get(n)))
        return f"IncomingMeta({shown})"


def take_msg(h: int) -> tuple:
    """(payload, meta) of a msg handle, which is closed: one copy out."""
    try:
        return take_bytes(lib.weida_msg_data, h), IncomingMeta._read(h)
    finally:
        close(h)


def take_payload(h: int) -> bytes:
    """The payload of a msg handle, which is closed."""
    try:
        return take_bytes(lib.weida_msg_data, h)
    finally:
        close(h)


# Converters from a completion's (a, b) to a coroutine's value (see _loop).
def msg_value(a: int, b: int) -> tuple:
    """The msg handle a as (payload, meta)."""
    return take_msg(a)


def payload_value(a: int, b: int) -> bytes:
    """The payload of the msg handle a."""
    return take_payload(a)


class Survey:
    """What one survey collected. Silence is counted, not raised."""

    __slots__ = ("replies", "asked", "failed", "late", "_silent")

    def __init__(self, replies: list, asked: int, failed: int, late: int, silent: int) -> None:
        self.replies = replies  #: the replies, in arrival order (list of bytes)
        self.asked = asked  #: respondents the question was put to
        self.failed = failed  #: answered with an error (refusal, reset, loss, ceiling)
        self.late = late  #: replies that came after the deadline (not delivered)
        self._silent = silent

    def silent(self) -> int:
        """Respondents asked that answered neither way."""
        return self._silent

    @classmethod
    def _take(cls, h: int) -> "Survey":
        """Copies a survey handle's counts and replies, then closes it."""
        try:
            counts = _ffi.SurveyCounts(size=ctypes.sizeof(_ffi.SurveyCounts))
            check(lib.weida_survey_counts(h, byref(counts)))
            replies = [take_bytes(lib.weida_survey_reply, h, i) for i in range(counts.replies)]
            return cls(replies, counts.asked, counts.failed, counts.late, counts.silent)
        finally:
            close(h)

    def __repr__(self) -> str:
        return (f"Survey(replies={len(self.replies)}, asked={self.asked}, failed={self.failed}, "
                f"late={self.late}, silent={self._silent})")


def survey_args(payload: object, deadline_seconds: object, max_reply_bytes: object) -> tuple:
    """A survey's C arguments after the surveyor handle, checked the same way
    on both surfaces: (payload, payload length, deadline, reply ceiling)."""
    data, n = bytes_arg(payload)
    return data, n, deadline(deadline_seconds, "deadline_seconds"), ceiling(max_reply_bytes, "max_reply_bytes")
