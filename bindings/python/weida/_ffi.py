"""ctypes declarations of the C ABI (include/weida.h): the one place that
knows C signatures.

Every other module calls ``lib.weida_*`` through the prototypes declared
here. The library is loaded with ``ctypes.CDLL`` (not ``PyDLL``), so the GIL
is released for the length of every C call: a blocking receive in one thread
never stalls the others. A test holds ``SIGNATURES`` equal to the header's
prototypes, so a changed C signature fails the suite instead of corrupting
memory.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)

# Return codes that are not failures, or that the binding handles itself
# (weida.h's, from the generated table).
from ._abi import EBADHANDLE, EINTERNAL, EINVAL, END, ETIMEDOUT, ETRUNCATED, OK  # noqa: F401

#: The ABI these declarations describe (WEIDA_ABI_VERSION in weida.h).
ABI_VERSION = 1

# enum weida_meta_field
META_ENDPOINT = 1
META_CONTENT_TYPE = 2
META_TOPIC = 3
META_PEER = 4
META_TRACEPARENT = 5
META_TRACESTATE = 6
META_LOCAL_PEER = 7
META_CONTENT_LEN = 16
META_SEQUENCE = 17
META_MISSED = 18
META_REPORT_MODE = 19
META_REPORT_ID = 20
META_SEGMENT = 21
META_LAYER = 22
META_DELIVERY_ATTEMPT = 23
META_ACHIEVED = 24

#: typedef void (*weida_done_fn)(void *user, int code, uint64_t a, uint64_t b);
DONE_FN = CFUNCTYPE(None, c_void_p, c_int, c_uint64, c_uint64)
#: typedef void (*weida_log_fn)(void *user, int level, const char *message, const char *attrs);
LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p, c_char_p)

# enum weida_log_level: log/slog's numbers.
LOG_DEBUG = -4
LOG_INFO = 0
LOG_WARN = 4
LOG_ERROR = 8


class Guarantees(Structure):
    """weida_guarantees_t: every field's 0 is that dimension's core level."""

    _fields_ = [
        ("size", c_size_t),
        ("delivery", c_int32),
        ("acknowledgement", c_int32),
        ("durability", c_int32),
        ("replicas", c_uint32),
        ("ordering", c_int32),
        ("deduplication", c_int32),
        ("dedup_window_ms", c_uint64),
        ("backpressure", c_int32),
        ("producer_naming", c_int32),
        ("control_isolated", c_int32),
    ]


class RuntimeOpts(Structure):
    """weida_runtime_opts_t."""

    _fields_ = [
        ("size", c_size_t),
        ("worker_threads", c_uint32),
        ("datagrams", c_int32),
        ("path_report", c_int32),
        ("endpoint_queue", c_uint32),
        ("send_timeout_ms", c_uint64),
        ("required", POINTER(Guarantees)),
        ("offered", POINTER(Guarantees)),
    ]


class BindOpts(Structure):
    """weida_bind_opts_t."""

    _fields_ = [("size", c_size_t), ("client_auth", c_int32), ("client_trust", c_uint64)]


class EndpointOpts(Structure):
    """weida_endpoint_opts_t."""

    _fields_ = [("size", c_size_t), ("client_identity", c_uint64)]


class DropCounts(Structure):
    """weida_drop_counts_t."""

    _fields_ = [
        ("size", c_size_t),
        ("total", c_uint64),
        ("subscriber_budget", c_uint64),
        ("subscriber_queue", c_uint64),
        ("no_parked_connection", c_uint64),
    ]


class SurveyCounts(Structure):
    """weida_survey_counts_t."""

    _fields_ = [
        ("size", c_size_t),
        ("asked", c_uint64),
        ("failed", c_uint64),
        ("late", c_uint64),
        ("silent", c_uint64),
        ("replies", c_uint64),
    ]


# Short names for the parameter types below. A handle of any role is a
# uint64_t; text in is a NUL-terminated char *; bytes in are (void *, size_t).
H = c_uint64
OUT_H = POINTER(c_uint64)
SIZE = c_size_t
OUT_SIZE = POINTER(c_size_t)
OUT_U64 = POINTER(c_uint64)
OUT_INT = POINTER(c_int)
TEXT = c_char_p
BUF = c_char_p  # a caller-owned text buffer (create_string_buffer)
DATA = c_void_p
OUT_DATA = POINTER(c_void_p)
SECONDS = c_double
LEVELS = POINTER(c_uint64)  # a borrowed const uint64_t[] of report levels
MODE = c_int  # enum weida_report_mode
#: The trailing (callback, user, op) of every _async function.
ASYNC = (DONE_FN, c_void_p, OUT_H)
#: The trailing (buf, cap, needed) of every text getter.
TEXT_OUT = (BUF, SIZE, OUT_SIZE)

#: name -> (restype, argtypes), in the header's order.
SIGNATURES: dict[str, tuple[object, tuple[object, ...]]] = {}


def _declare(name: str, *argtypes: object, restype: object = c_int) -> None:
    """Records one prototype; tuple arguments (ASYNC, TEXT_OUT) are spliced in."""
    flat: list[object] = []
    for t in argtypes:
        flat.extend(t if isinstance(t, tuple) else (t,))
    SIGNATURES[name] = (restype, tuple(flat))


#: waiting call name -> its outputs (the trailing out-pointers of the blocking form).
WAITING: dict[str, tuple[object, ...]] = {}


def _waiting(name: str, *argtypes: object) -> None:
    """Declares a waiting call in both forms: blocking and _async."""
    *inputs, outputs = argtypes
    WAITING[name] = outputs if isinstance(outputs, tuple) else (outputs,)
    _declare(name, *inputs, outputs)
    _declare(name + "_async", *inputs, ASYNC)


_NONE = ()  # a waiting call with no outputs

# Library, errors, handles
_declare("weida_version", restype=c_char_p)
_declare("weida_abi_version", restype=c_uint32)
_declare("weida_wire_version", restype=c_uint64)
_declare("weida_alpn", restype=c_char_p)
_declare("weida_strerror", c_int, restype=c_char_p)
_declare("weida_last_error", TEXT_OUT)
_declare("weida_close", H)
_declare("weida_op_cancel", H)
_declare("weida_handles_live", OUT_U64)

# Logging
_declare("weida_set_log_callback", c_int, LOG_FN, c_void_p)

# Runtime
_declare("weida_runtime_new", POINTER(RuntimeOpts), OUT_H)
_declare("weida_runtime_shutdown", H)
_waiting("weida_runtime_drain", H, SECONDS, (OUT_U64, OUT_U64))
_declare("weida_runtime_suppressed_duplicates", H, OUT_U64)
_declare("weida_runtime_offered", H, POINTER(Guarantees))
for _role in ("requester", "pusher", "subscriber", "pair", "surveyor"):
    _declare(f"weida_runtime_{_role}", H, H, POINTER(EndpointOpts), OUT_H)

# Identity and trust
_declare("weida_identity_generate", OUT_H)
_declare("weida_identity_generate_for", POINTER(c_char_p), SIZE, OUT_H)
_declare("weida_identity_from_pem_file", TEXT, OUT_H)
_declare("weida_identity_fingerprint", H, TEXT_OUT)
_declare("weida_trust_by_address", OUT_H)
_declare("weida_trust_pin", TEXT, OUT_H)
_declare("weida_trust_anchor_file", TEXT, OUT_H)
_declare("weida_trust_pin_file", TEXT, OUT_H)

# Binding
_declare("weida_bind_quic", H, TEXT, H, POINTER(BindOpts), OUT_H)
_declare("weida_bind_inproc", H, TEXT, OUT_H)
_declare("weida_bind_unix", H, TEXT, OUT_H)
_declare("weida_binding_local_addr", H, TEXT_OUT)
_declare("weida_binding_fingerprint", H, TEXT_OUT)
_declare("weida_binding_url", H, TEXT, TEXT_OUT)
for _role in ("replier", "puller", "publisher", "pair", "respondent"):
    _declare(f"weida_binding_{_role}", H, TEXT, OUT_H)
_declare("weida_binding_bus", H, TEXT, H, POINTER(EndpointOpts), OUT_H)

# Req/Rep
_waiting("weida_requester_connect", H, TEXT, _NONE)
_waiting("weida_requester_request", H, DATA, SIZE, SIZE, OUT_H)
_waiting("weida_requester_open", H, (OUT_H, OUT_H))
_declare("weida_requester_peer_count", H, OUT_SIZE)
_waiting("weida_replier_accept", H, SIZE, OUT_H)
_declare("weida_replier_path", H, TEXT_OUT)
_declare("weida_request_payload", H, OUT_DATA, OUT_SIZE)
_waiting("weida_request_reply", H, DATA, SIZE, _NONE)
_declare("weida_request_refuse", H)
_declare("weida_request_reporter", H, OUT_H)

# Push/Pull
_waiting("weida_pusher_connect", H, TEXT, _NONE)
_waiting("weida_pusher_send", H, DATA, SIZE, _NONE)
_declare("weida_pusher_try_send", H, DATA, SIZE, OUT_INT)
_waiting("weida_pusher_open", H, OUT_H)
_waiting("weida_pusher_send_reporting", H, DATA, SIZE, LEVELS, SIZE, MODE, OUT_H)
_waiting("weida_pusher_open_reporting", H, LEVELS, SIZE, MODE, OUT_H)
_declare("weida_pusher_peer_count", H, OUT_SIZE)
_declare("weida_pusher_dropped", H, OUT_U64)
_waiting("weida_puller_recv", H, SIZE, OUT_H)
_waiting("weida_puller_recv_reporting", H, SIZE, (OUT_H, OUT_H))
_waiting("weida_puller_recv_stream", H, OUT_H)
_declare("weida_puller_path", H, TEXT_OUT)

# Pub/Sub
_declare("weida_publisher_publish", H, TEXT, DATA, SIZE, OUT_SIZE)
_declare("weida_publisher_open", H, TEXT, OUT_H)
_declare("weida_publisher_subscriber_count", H, OUT_SIZE)
_declare("weida_publisher_filter_count", H, OUT_SIZE)
_declare("weida_publisher_dropped", H, OUT_U64)
_declare("weida_publisher_dropped_on", H, TEXT, POINTER(DropCounts), OUT_INT)
_declare("weida_publisher_path", H, TEXT_OUT)
_declare("weida_fanout_topic", H, TEXT_OUT)
_waiting("weida_fanout_write_within", H, DATA, SIZE, SECONDS, OUT_SIZE)
_declare("weida_fanout_write_now", H, DATA, SIZE, OUT_SIZE)
_declare("weida_fanout_subscribers", H, OUT_SIZE)
_declare("weida_fanout_finish", H, OUT_SIZE)
_waiting("weida_subscriber_connect", H, TEXT, _NONE)
_waiting("weida_subscriber_subscribe", H, TEXT, _NONE)
_waiting("weida_subscriber_unsubscribe", H, TEXT, _NONE)
_waiting("weida_subscriber_recv", H, SIZE, OUT_H)
_waiting("weida_subscriber_recv_stream", H, OUT_H)
_declare("weida_subscriber_peer_count", H, OUT_SIZE)
_declare("weida_subscriber_filter_count", H, OUT_SIZE)
_waiting("weida_subscriber_grant", H, c_uint64, _NONE)
_declare("weida_subscriber_granted", H, OUT_U64)
_waiting("weida_subscriber_recv_reporting", H, SIZE, (OUT_H, OUT_H))

# PAIR
_waiting("weida_paired_connect", H, TEXT, _NONE)
_waiting("weida_paired_send", H, DATA, SIZE, _NONE)
_waiting("weida_paired_open", H, OUT_H)
_waiting("weida_paired_send_reporting", H, DATA, SIZE, LEVELS, SIZE, MODE, OUT_H)
_waiting("weida_paired_open_reporting", H, LEVELS, SIZE, MODE, OUT_H)
_waiting("weida_paired_recv", H, SIZE, OUT_H)
_waiting("weida_paired_recv_reporting", H, SIZE, (OUT_H, OUT_H))
_waiting("weida_paired_recv_stream", H, OUT_H)
_declare("weida_paired_path", H, TEXT_OUT)
_declare("weida_paired_peer_count", H, OUT_SIZE)

# SURVEY
_waiting("weida_surveyor_connect", H, TEXT, _NONE)
_waiting("weida_surveyor_survey", H, DATA, SIZE, SECONDS, SIZE, OUT_H)
_declare("weida_surveyor_peer_count", H, OUT_SIZE)
_declare("weida_survey_counts", H, POINTER(SurveyCounts))
_declare("weida_survey_reply", H, SIZE, OUT_DATA, OUT_SIZE)
_waiting("weida_respondent_accept", H, SIZE, OUT_H)
_declare("weida_respondent_path", H, TEXT_OUT)

# BUS
_waiting("weida_bus_connect", H, TEXT, _NONE)
_waiting("weida_bus_send", H, DATA, SIZE, OUT_SIZE)
_waiting("weida_bus_recv", H, SIZE, OUT_H)
_declare("weida_bus_peer_count", H, OUT_SIZE)
_declare("weida_bus_dropped", H, OUT_U64)
_declare("weida_bus_path", H, TEXT_OUT)

# Streams
_waiting("weida_ostream_write", H, DATA, SIZE, _NONE)
_waiting("weida_ostream_finish", H, _NONE)
_declare("weida_ostream_cancel", H)
_declare("weida_ostream_cursors", H, OUT_H)
_waiting("weida_istream_read", H, DATA, SIZE, OUT_SIZE)
_waiting("weida_istream_collect", H, SIZE, OUT_H)
_declare("weida_istream_reporter", H, OUT_H)
_waiting("weida_reply_recv", H, OUT_H)

# Cursors and reporters
_waiting("weida_cursors_changed", H, SECONDS, _NONE)
_declare("weida_cursors_offset", H, c_uint64, OUT_U64, OUT_INT)
_declare("weida_cursors_snapshot", H, OUT_U64, OUT_U64, SIZE, OUT_SIZE)
_declare("weida_reporter_report", H, c_uint64, c_uint64)
_declare("weida_reporter_finish", H)
_declare("weida_reporter_levels", H, OUT_U64, SIZE, OUT_SIZE)
_declare("weida_reporter_mode", H, OUT_INT)

# Messages and meta
_declare("weida_msg_data", H, OUT_DATA, OUT_SIZE)
_declare("weida_meta_text", H, c_int, TEXT_OUT, OUT_INT)
_declare("weida_meta_uint", H, c_int, OUT_U64, OUT_INT)
_declare("weida_meta_report_levels", H, OUT_U64, SIZE, OUT_SIZE, OUT_INT)


# RADIO/DISH
class SegmentOpts(Structure):
    """weida_segment_opts_t."""

    _fields_ = [("size", c_size_t), ("max_age_ms", c_uint64), ("priority", c_int32), ("follows_upstream", c_int32)]


class JoinOpts(Structure):
    """weida_join_opts_t."""

    _fields_ = [("size", c_size_t), ("max_age_ms", c_uint64), ("cap_layers", c_int32), ("max_layer", c_uint32)]


class DishDrops(Structure):
    """weida_dish_drops_t."""

    _fields_ = [
        ("size", c_size_t),
        ("peer", ctypes.c_char * 72),
        ("addr", ctypes.c_char * 64),
        ("subscriber_budget", c_uint64),
        ("subscriber_queue", c_uint64),
        ("superseded", c_uint64),
        ("expired", c_uint64),
        ("too_large", c_uint64),
        ("no_datagrams", c_uint64),
        ("layers_cut", c_uint64),
        ("no_parked", c_uint64),  # appended last: weida.h keeps older sizes valid
    ]


# enum weida_dish_kind
DISH_SEGMENT = 1
DISH_DATAGRAM = 2

_declare("weida_binding_radio", H, TEXT, OUT_H)
_declare("weida_radio_segment", H, TEXT, POINTER(SegmentOpts), OUT_H)
_declare("weida_radio_datagram", H, TEXT, DATA, SIZE, OUT_SIZE)
_declare("weida_radio_dish_count", H, OUT_SIZE)
_declare("weida_radio_dropped", H, OUT_U64)
_declare("weida_radio_dish_drops", H, POINTER(DishDrops), SIZE, OUT_SIZE)
_declare("weida_radio_path", H, TEXT_OUT)
_declare("weida_segment_write", H, DATA, SIZE, OUT_SIZE)
_declare("weida_segment_write_layer", H, c_uint32, DATA, SIZE, OUT_SIZE)
_declare("weida_segment_finish_layer", H, c_uint32)
_declare("weida_segment_finish", H, OUT_SIZE)
_declare("weida_segment_number", H, OUT_U64)
_declare("weida_runtime_dish", H, H, POINTER(EndpointOpts), OUT_H)
_waiting("weida_dish_connect", H, TEXT, _NONE)
_waiting("weida_dish_join", H, TEXT, POINTER(JoinOpts), _NONE)
_waiting("weida_dish_leave", H, TEXT, _NONE)
_waiting("weida_dish_recv", H, SIZE, (OUT_H, OUT_INT))
_declare("weida_dish_peer_count", H, OUT_SIZE)


# Completion queues (an addition to the callback form; see _cq.py). A
# completion is four words: op, code (low 32 bits, signed), a, b.
_declare("weida_cq_new", OUT_H)
_declare("weida_cq_fd", H, OUT_INT)
_declare("weida_cq_drain", H, POINTER(c_uint64), SIZE, OUT_SIZE)
_declare("weida_cq_post", c_void_p, c_int, c_uint64, c_uint64, restype=None)


class ConnectionStats(Structure):
    """weida_connection_stats_t (times in seconds)."""

    _fields_ = [
        ("size", c_size_t),
        ("live", c_int32),
        ("has_transport", c_int32),
        ("age", c_double),
        ("redials", c_uint64),
        ("rtt", c_double),
        ("min_rtt", c_double),
        ("latest_rtt", c_double),
        ("rtt_variation", c_double),
        ("congestion_window", c_uint64),
        ("lost_packets", c_uint64),
        ("lost_bytes", c_uint64),
        ("tx_packets", c_uint64),
        ("tx_bytes", c_uint64),
        ("rx_packets", c_uint64),
        ("rx_bytes", c_uint64),
        ("has_remote", c_int32),
        ("reserved", c_uint32),
        ("remote_rtt", c_double),
        ("remote_age", c_double),
        ("remote_known", c_uint32),
        ("reserved2", c_uint32),
        ("remote_min_rtt", c_double),
        ("remote_congestion_window", c_uint64),
        ("remote_congestion_events", c_uint64),
        ("remote_lost_packets", c_uint64),
        ("remote_lost_bytes", c_uint64),
        ("remote_sent_packets", c_uint64),
        ("remote_current_mtu", c_uint64),
        ("remote_tx_datagrams", c_uint64),
        ("remote_tx_bytes", c_uint64),
        ("remote_rx_datagrams", c_uint64),
        ("remote_rx_bytes", c_uint64),
    ]


# Connection statistics: (endpoint, index, &stats, url buffer).
for _role in ("requester", "pusher", "subscriber", "paired", "surveyor", "bus", "dish"):
    _declare(f"weida_{_role}_connection_stats", H, SIZE, POINTER(ConnectionStats), TEXT_OUT)

def _library_path() -> str:
    """The bundled libweida.so beside this file; WEIDA_LIBRARY overrides it
    (for developing against a freshly built library)."""
    override = os.environ.get("WEIDA_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libweida.so")


def _load() -> ctypes.CDLL:
    path = _library_path()
    try:
        loaded = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"weida: cannot load the C library {path} (this package binds C ABI {ABI_VERSION}): {e}") from e
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(loaded, name)
        fn.restype = restype
        fn.argtypes = argtypes
    found = loaded.weida_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"weida: {path} implements C ABI {found}, this package binds ABI {ABI_VERSION}")
    return loaded


#: Where the library was loaded from.
LIBRARY_PATH = _library_path()
#: The loaded library, every function declared.
lib = _load()
