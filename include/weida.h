/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weida.h — the C ABI of weida, a QUIC-native messaging library.
 *
 * One Go core built with -buildmode=c-shared (libweida.so) or c-archive
 * (libweida.a) sits behind this header; Python, Node and C programs bind to
 * it. This header is hand-written and self-contained: it needs only
 * <stddef.h> and <stdint.h>, and compiles cleanly as C11 and C++17.
 *
 * ---------------------------------------------------------------------------
 * Conventions (read once; every function follows them)
 * ---------------------------------------------------------------------------
 *
 * Return codes. Every function that can fail returns int: 0 (WEIDA_OK) on
 * success, a positive weida_code otherwise. Codes 1..26 mirror the library's
 * error kinds one-to-one; 100..105 belong to the ABI. The full sentence of
 * the last failure on the calling thread is weida_last_error(). A function
 * that succeeds does not clear it.
 *
 * Handles. Every object is a 64-bit handle (a slot index and a generation),
 * never a pointer. Zero is never a valid handle. A handle of the wrong role,
 * a closed (stale) handle or a made-up one fails with WEIDA_EBADHANDLE; it
 * never touches freed memory. weida_close() releases any handle; a second
 * close is WEIDA_EBADHANDLE and harmless. All handle types are uint64_t; the
 * role-named typedefs say what a parameter expects.
 *
 * Lifetime. A handle obtained from a runtime (bindings, endpoints, requests,
 * streams) keeps that runtime alive: the runtime shuts down when its own
 * handle and every such child are closed, in any order, or at once with
 * weida_runtime_shutdown(). Messages, surveys, identities and trusts are
 * plain values and keep nothing alive.
 *
 * Closing follows the library's drop semantics: closing an endpoint wakes
 * its blocked calls with WEIDA_ECANCELED; closing an unanswered request
 * sends NO_REPLY to the asker; closing an unfinished outgoing stream resets
 * it (the reader sees Canceled); closing an unread incoming stream refuses
 * the rest (the sender sees Rejected).
 *
 * Bytes in. Payloads are (const void *data, size_t len); data may be NULL
 * only when len is 0. Text is NUL-terminated UTF-8. Both are borrowed for
 * the call only: the library copies what it keeps, so the caller may reuse
 * or free them as soon as the call returns (for an _async call: as soon as
 * the _async function returns).
 *
 * Bytes out. A whole message is a weida_msg_t whose payload the library
 * allocated; it stays valid until weida_close(msg). Text out uses a
 * caller-owned buffer: (char *buf, size_t cap, size_t *needed). *needed
 * receives the full size including the terminating NUL (needed may be NULL);
 * when cap is too small the text is cut to fit (still NUL-terminated when
 * cap > 0) and the call returns WEIDA_ETRUNCATED. buf may be NULL when cap
 * is 0, to ask for the size.
 *
 * Ceilings. Every receive takes a ceiling in bytes (max_bytes) and has no
 * default. A payload above it is refused (the sender sees the refusal) and
 * the call returns WEIDA_ELIMIT.
 *
 * Deadlines are double seconds, finite and not negative (else WEIDA_EINVAL).
 * There are no other per-call timeouts: cancel an _async operation instead.
 *
 * Out-parameters are required (never NULL) unless the function's comment
 * says otherwise; a NULL one is WEIDA_EINVAL and nothing is done.
 *
 * Blocking and callback forms. Every operation that waits has two forms:
 *
 *   int weida_X(..., outputs);                                  blocking
 *   int weida_X_async(..., weida_done_fn cb, void *user,
 *                     weida_op_t *op);                          callback
 *
 * The blocking form waits on the calling thread. The callback form returns
 * at once: when it returns non-zero nothing was started and cb will never
 * run; when it returns 0, cb runs exactly once, on a library thread, with
 * the outcome code and the operation's results in a and b (each function
 * says which; unused ones are 0). op (may be NULL) receives a handle to pass
 * to weida_op_cancel(); it becomes invalid just before cb runs, so it needs
 * no close. Inside cb, weida_last_error() returns the failure's sentence.
 *
 * A callback must return promptly and must not throw (C++) or longjmp. It
 * may call any non-blocking function, including other _async functions and
 * weida_close(); a blocking function called from inside a callback is
 * refused with WEIDA_ERUNTIME (it would stall a library thread), exactly as
 * the upstream blocking facade refuses to run inside its own reactor.
 * Buffers lent to an _async read stay in use until its callback runs.
 *
 * Process. Loading the library starts the Go runtime; the process must not
 * fork() after the first call unless the child only exec()s.
 */
#ifndef WEIDA_H
#define WEIDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes; compare with weida_abi_version(). */
#define WEIDA_ABI_VERSION 1

/* ------------------------------------------------------------------------ */
/* Return codes                                                             */
/* ------------------------------------------------------------------------ */

enum weida_code {
    WEIDA_OK = 0,
    /* 1..26: the library's error kinds (the Python exception of the same
     * name in parentheses where it differs). */
    WEIDA_ERUNTIME = 1,              /* Runtime (RuntimeFailure) */
    WEIDA_EINVALID_ADDRESS = 2,      /* InvalidAddress */
    WEIDA_EINVALID_PATH = 3,         /* InvalidEndpointPath */
    WEIDA_EINVALID_FINGERPRINT = 4,  /* InvalidFingerprint */
    WEIDA_EALREADY_REGISTERED = 5,   /* AlreadyRegistered */
    WEIDA_EADDRINUSE = 6,            /* AddressInUse */
    WEIDA_ENOTCONN = 7,              /* NotConnected */
    WEIDA_ECONNLOST = 8,             /* ConnectionLost: definite failure */
    WEIDA_ENEGOTIATION = 9,          /* Negotiation */
    WEIDA_EPROTOCOL = 10,            /* Protocol */
    WEIDA_EREJECTED = 11,            /* Rejected */
    WEIDA_EUNKNOWN_ENDPOINT = 12,    /* UnknownEndpoint */
    WEIDA_EUNSUPPORTED = 13,         /* Unsupported */
    WEIDA_ENOPARKED = 14,            /* NoParkedConnection */
    WEIDA_ENOREPLY = 15,             /* NoReply */
    WEIDA_ECANCELED = 16,            /* Canceled */
    WEIDA_EEXPIRED = 17,             /* Expired */
    WEIDA_EINDETERMINATE = 18,       /* Indeterminate: outcome unknown */
    WEIDA_ELIMIT = 19,               /* LimitExceeded */
    WEIDA_ENODATAGRAMS = 20,         /* DatagramsUnavailable */
    WEIDA_ETOOLARGE = 21,            /* TooLarge */
    WEIDA_ETLS = 22,                 /* Tls */
    WEIDA_EUNTRUSTED = 23,           /* Untrusted: the text names the key */
    WEIDA_EUNTRUSTED_PRINCIPAL = 24, /* UntrustedPrincipal */
    WEIDA_EIO = 25,                  /* Io */
    WEIDA_ETRANSPORT = 26,           /* Transport */
    /* 100..105: the ABI's own codes. */
    WEIDA_EBADHANDLE = 100, /* zero, stale, forged or wrong-role handle */
    WEIDA_EINVAL = 101,     /* bad argument: NULL pointer, bad number */
    WEIDA_ETIMEDOUT = 102,  /* a deadline passed (not a failure of the peer) */
    WEIDA_END = 103,        /* not a failure: end of stream / no more */
    WEIDA_EINTERNAL = 104,  /* the library caught an internal fault */
    WEIDA_ETRUNCATED = 105  /* a text buffer was too small; see *needed */
};

/* ------------------------------------------------------------------------ */
/* Handles and callbacks                                                    */
/* ------------------------------------------------------------------------ */

typedef uint64_t weida_handle_t;     /* any handle (weida_close) */
typedef uint64_t weida_runtime_t;    /* a runtime: owns connections */
typedef uint64_t weida_identity_t;   /* a key and certificate */
typedef uint64_t weida_trust_t;      /* the keys/authorities a dialler accepts */
typedef uint64_t weida_binding_t;    /* a QUIC socket, in-process bus or unix socket serving paths */
typedef uint64_t weida_requester_t;  /* Req/Rep, asking side (dials) */
typedef uint64_t weida_replier_t;    /* Req/Rep, answering side (bound) */
typedef uint64_t weida_request_t;    /* one accepted request owing one answer */
typedef uint64_t weida_pusher_t;     /* Push/Pull, sending side (dials) */
typedef uint64_t weida_puller_t;     /* Push/Pull, receiving side (bound) */
typedef uint64_t weida_publisher_t;  /* Pub/Sub, bound side */
typedef uint64_t weida_fanout_t;     /* one streamed publication */
typedef uint64_t weida_subscriber_t; /* Pub/Sub, dialling side */
typedef uint64_t weida_paired_t;     /* PAIR, either end */
typedef uint64_t weida_surveyor_t;   /* SURVEY, asking side (dials) */
typedef uint64_t weida_survey_t;     /* what one survey collected */
typedef uint64_t weida_respondent_t; /* SURVEY, answering side (bound) */
typedef uint64_t weida_bus_t;        /* BUS member: bound and dialling */
typedef uint64_t weida_ostream_t;    /* an outgoing streamed transfer */
typedef uint64_t weida_istream_t;    /* an incoming streamed transfer */
typedef uint64_t weida_reply_t;      /* the reply half of an opened exchange */
typedef uint64_t weida_msg_t;        /* a whole received message and its meta */
typedef uint64_t weida_op_t;         /* a pending _async operation */
typedef uint64_t weida_cursors_t;    /* a sender's view of the report it ordered */
typedef uint64_t weida_reporter_t;   /* a receiver's side of a report ordered of it */

/* Completion of an _async call: fires exactly once on a library thread.
 * code is WEIDA_OK or a weida_code; a and b are the results the function
 * documents (a result handle is owned by the callee from here on). */
typedef void (*weida_done_fn)(void *user, int code, uint64_t a, uint64_t b);

/* Log levels: the values of Go's log/slog, so a level between two names
 * (say WEIDA_LOG_INFO + 2) means what it does there. What is logged:
 * connections opened and closed (INFO, with the peer's fingerprint or
 * "anonymous", the remote address and the close reason), failed
 * negotiations (WARN, naming the dimension), refused transfers (DEBUG, at
 * most ten a second per runtime). Nothing per message at INFO or above. */
enum weida_log_level {
    WEIDA_LOG_DEBUG = -4,
    WEIDA_LOG_INFO = 0,
    WEIDA_LOG_WARN = 4,
    WEIDA_LOG_ERROR = 8
};

/* One log line: level (enum weida_log_level), the message, and its
 * attributes as space-separated key=value text (a value with a space, '=',
 * '"' or nothing in it is a Go-quoted string), e.g.
 * peer=sha256:22ed... remote=127.0.0.1:40313 side=dialled. Both strings are
 * borrowed for the call. It runs on a library thread (sometimes the thread
 * of the blocking call that caused the line), under a completion callback's
 * rules: return promptly, never throw or longjmp, make no blocking call
 * (refused with WEIDA_ERUNTIME). A line the callback itself causes on its
 * own thread is dropped, never delivered back into it. */
typedef void (*weida_log_fn)(void *user, int level, const char *message, const char *attrs);

/* ------------------------------------------------------------------------ */
/* Option and result structs: each leads with its own size, so it can grow  */
/* compatibly. Set size = sizeof(the struct) and zero what you do not set.  */
/* A NULL options pointer means every default.                              */
/* ------------------------------------------------------------------------ */

/* A guarantee set: one level per dimension. Every field's 0 is that
 * dimension's core level, so a zeroed struct (or a NULL pointer) is core:
 * no order, no deduplication, the transport receipt. Levels this build
 * cannot honour are refused by weida_runtime_new with a sentence naming the
 * dimension (never silently weakened); beyond core it honours ordering
 * DETECT and REASSEMBLE, deduplication BOUNDED, and (required of a broker)
 * acknowledgement WEIDA_ACCEPTED or WEIDA_STORED. A value outside a
 * dimension's enum, or levels that contradict each other (a durability
 * without STORED/REPLICATED, BOUNDED without a window, COALESCE with
 * REASSEMBLE), is refused the same way. */
enum weida_ordering {
    WEIDA_ORDERING_NONE = 0,       /* Push/Pull and Pub/Sub keep no order across messages */
    WEIDA_ORDERING_DETECT = 1,     /* numbered per producer: gaps reported (WEIDA_META_MISSED) */
    WEIDA_ORDERING_REASSEMBLE = 2, /* early arrivals held (at most 256 per connection) and
                                    * released in the producer's order */
    WEIDA_ORDERING_PER_KEY = 3,    /* not honoured in this version */
    WEIDA_ORDERING_TOTAL = 4       /* not honoured in this version */
};
enum weida_deduplication {
    WEIDA_DEDUP_NONE = 0,
    WEIDA_DEDUP_BOUNDED = 1, /* a repeat within dedup_window_ms is read and discarded */
    WEIDA_DEDUP_DURABLE = 2  /* not honoured in this version */
};
enum weida_delivery {
    WEIDA_DELIVERY_BEST_EFFORT = 0,
    WEIDA_DELIVERY_AT_MOST_ONCE = 1, /* not honoured in this version */
    WEIDA_DELIVERY_AT_LEAST_ONCE = 2 /* not honoured in this version */
};
enum weida_durability {
    WEIDA_DURABILITY_UNSET = 0,   /* no axis stated */
    WEIDA_DURABILITY_WRITTEN = 1, /* survives the storing process dying */
    WEIDA_DURABILITY_FLUSHED = 2  /* on durable media: survives power loss */
};
enum weida_backpressure {
    WEIDA_BACKPRESSURE_BLOCK = 0,
    WEIDA_BACKPRESSURE_REJECT = 1,  /* not declarable in this version */
    WEIDA_BACKPRESSURE_DROP = 2,    /* not declarable in this version */
    WEIDA_BACKPRESSURE_SPILL = 3,   /* not declarable in this version */
    WEIDA_BACKPRESSURE_COALESCE = 4 /* not declarable in this version */
};
enum weida_producer_naming {
    WEIDA_NAMING_FINGERPRINT = 0, /* the producer is the peer's proved key */
    WEIDA_NAMING_STABLE = 1       /* not honoured in this version */
};

typedef struct weida_guarantees {
    size_t size;
    int32_t delivery;         /* enum weida_delivery */
    int32_t acknowledgement;  /* enum weida_level 1..5; 0 = WEIDA_TRANSPORT_RECEIPT */
    int32_t durability;       /* enum weida_durability: only with STORED or REPLICATED */
    uint32_t replicas;        /* only with REPLICATED: at least 2, leader included */
    int32_t ordering;         /* enum weida_ordering */
    int32_t deduplication;    /* enum weida_deduplication */
    uint64_t dedup_window_ms; /* required with WEIDA_DEDUP_BOUNDED, else 0 */
    int32_t backpressure;     /* enum weida_backpressure */
    int32_t producer_naming;  /* enum weida_producer_naming */
    int32_t control_isolated; /* 1: control traffic never waits behind data (not honoured) */
} weida_guarantees_t;

typedef struct weida_runtime_opts {
    size_t size;
    uint32_t worker_threads; /* accepted for parity; Go schedules itself */
    int32_t datagrams;       /* 1: datagram flows, 64 KiB receive budget (both ends need it) */
    int32_t path_report;     /* 1: exchange path reports over QUIC (both ends need it; see has_remote) */
    uint32_t endpoint_queue; /* accept-queue depth per path; 0 = 256 */
    uint64_t send_timeout_ms; /* bound on waiting for a live connection; 0 = none */
    /* Required of every peer on every connection, and offered too; NULL =
     * core. A peer that does not offer it fails the handshake on both sides
     * with WEIDA_ENEGOTIATION naming the dimension (the dialler's connect
     * returns it). Borrowed for the call, like every input. */
    const weida_guarantees_t *required;
    /* Offered beyond required (it must reach required in every dimension);
     * NULL = exactly required. Each connection gets the weaker of the two
     * sides' offers, so offering REASSEMBLE without requiring it orders only
     * with peers that offer it too. */
    const weida_guarantees_t *offered;
} weida_runtime_opts_t;

/* Who may connect to a binding. */
enum weida_client_auth {
    WEIDA_CLIENT_ANONYMOUS_OK = 0, /* clients may present no certificate */
    WEIDA_CLIENT_ANY_KEY = 1,      /* a key is required and proved, not judged */
    WEIDA_CLIENT_TRUSTED = 2       /* a key trusted by client_trust is required */
};

typedef struct weida_bind_opts {
    size_t size;
    int32_t client_auth;         /* enum weida_client_auth */
    weida_trust_t client_trust;  /* for WEIDA_CLIENT_TRUSTED */
} weida_bind_opts_t;

typedef struct weida_endpoint_opts {
    size_t size;
    weida_identity_t client_identity; /* presented to servers; 0 = anonymous */
} weida_endpoint_opts_t;

/* Result of weida_publisher_dropped_on: one topic's dropped copies. */
typedef struct weida_drop_counts {
    size_t size;
    uint64_t total;                /* every drop, including lost at the wire */
    uint64_t subscriber_budget;    /* did not fit a subscriber's byte budget */
    uint64_t subscriber_queue;     /* a subscriber's queue of copies was full */
    uint64_t no_parked_connection; /* socket transports only */
} weida_drop_counts_t;

/* Result of weida_survey_counts. Silence is counted, not raised. */
typedef struct weida_survey_counts {
    size_t size;
    uint64_t asked;   /* respondents the question was put to */
    uint64_t failed;  /* answered with an error (refusal, reset, loss, ceiling) */
    uint64_t late;    /* replies that came after the deadline (not delivered) */
    uint64_t silent;  /* asked - replies - failed */
    uint64_t replies; /* replies delivered: index them with weida_survey_reply */
} weida_survey_counts_t;

/* Completion levels a sender may order a report for (cursors). Levels are
 * plain uint64_t because the space is open: 1..5 are the library's, 6..15
 * are reserved for later protocol versions (ordering one is
 * WEIDA_EPROTOCOL), and WEIDA_APPLICATION_FLOOR and above are the
 * application's own stages, carried and never interpreted. */
enum weida_level {
    WEIDA_TRANSPORT_RECEIPT = 1, /* the receiver's transport holds the bytes */
    WEIDA_ACCEPTED = 2,          /* a hop took responsibility in memory */
    WEIDA_STORED = 3,            /* a store holds the bytes up to the offset */
    WEIDA_REPLICATED = 4,        /* the bytes up to the offset are replicated */
    WEIDA_PROCESSED = 5,         /* the consumer settled the bytes up to the offset */
    WEIDA_APPLICATION_FLOOR = 16 /* the first level an application may name */
};

/* When a receiver writes its report. Any other mode is WEIDA_EPROTOCOL. */
enum weida_report_mode {
    WEIDA_PROGRESS = 0,  /* as levels advance, and the latest at the end (default) */
    WEIDA_FINAL_ONLY = 1 /* exactly one offset per level, when the report ends */
};

/* Fields of a received message's meta (weida_meta_text / weida_meta_uint). */
enum weida_meta_field {
    /* text */
    WEIDA_META_ENDPOINT = 1,     /* the path addressed; absent on a reply */
    WEIDA_META_CONTENT_TYPE = 2, /* the sender's media-type label */
    WEIDA_META_TOPIC = 3,        /* the topic of a fan-out copy */
    WEIDA_META_PEER = 4,         /* sha256:... the transport proved; never a header */
    WEIDA_META_TRACEPARENT = 5,  /* W3C trace context */
    WEIDA_META_TRACESTATE = 6,   /* W3C tracestate */
    WEIDA_META_LOCAL_PEER = 7,   /* "uid=N gid=N pid=N" the kernel proved for a unix
                                  * socket peer; absent over QUIC and in process */
    /* numbers */
    WEIDA_META_CONTENT_LEN = 16, /* the sender's advisory length */
    WEIDA_META_SEQUENCE = 17,    /* number in its producer's sequence (per topic, else path) */
    WEIDA_META_MISSED = 18,      /* numbers of that producer missed just before this one */
    WEIDA_META_REPORT_MODE = 19, /* enum weida_report_mode of the report ordered */
    WEIDA_META_REPORT_ID = 20,   /* the id the sender gave its report on the connection */
    WEIDA_META_SEGMENT = 21,     /* a dish's message: the segment number on its topic */
    WEIDA_META_LAYER = 22,       /* a dish's message: its layer (0 for a datagram) */
    /* How many times a queue handed this message out, this time included;
     * absent (the first attempt) reads as 1. Above 1 it means only "this
     * may be a duplicate", never why earlier attempts did not settle. */
    WEIDA_META_DELIVERY_ATTEMPT = 23,
    /* On a reply: the enum weida_level the answering hop certifies for the
     * request (a queue's confirm: WEIDA_ACCEPTED, or WEIDA_STORED when it
     * holds the message at its configured durability). Absent claims
     * nothing beyond the transport receipt. */
    WEIDA_META_ACHIEVED = 24
};

/* ------------------------------------------------------------------------ */
/* RADIO/DISH types                                                         */
/* ------------------------------------------------------------------------ */

typedef uint64_t weida_radio_t;   /* RADIO, bound side: lossy fan-out of segments */
typedef uint64_t weida_segment_t; /* one segment being written by a radio */
typedef uint64_t weida_dish_t;    /* DISH, dialling side: joins topics, receives */

/* A segment's terms (weida_radio_segment). */
typedef struct weida_segment_opts {
    size_t size;
    /* Expire every copy this long after the segment opened (the radio's
     * clock); a dish's own max_age also applies and the smaller wins.
     * 0 = none. */
    uint64_t max_age_ms;
    /* -32768..32767: positive is more urgent than the segment's peers,
     * negative less; a lower layer is never less urgent than a higher one. */
    int32_t priority;
    /* 1: keep this segment's copies alive when a successor opens on the
     * topic (unless the successor must wait for room at a dish). */
    int32_t follows_upstream;
} weida_segment_opts_t;

/* A dish's terms for one filter (weida_dish_join). Across several matching
 * filters the smallest max_age and the largest layer cap apply. */
typedef struct weida_join_opts {
    size_t size;
    uint64_t max_age_ms; /* latency budget: older copies are reset; 0 = none */
    int32_t cap_layers;  /* 1: apply max_layer; 0: every layer (max_layer must be 0) */
    uint32_t max_layer;  /* highest layer wanted, 0..15 (above: WEIDA_ELIMIT) */
} weida_join_opts_t;

/* What one dish lost at a radio, by cause (weida_radio_dish_drops). Every
 * count but layers_cut is a whole segment copy (or datagram segment) the
 * dish never got; layers_cut counts copies that lost layers above 0 but
 * kept layer 0. */
typedef struct weida_dish_drops {
    size_t size;
    char peer[72];              /* "sha256:<64 hex>" the dish proved; "" if anonymous */
    char addr[64];              /* its UDP address, telling anonymous dishes apart */
    uint64_t subscriber_budget; /* no room in the dish's byte budget */
    uint64_t subscriber_queue;  /* a layer's queue of chunks was full */
    uint64_t superseded;        /* reset because a newer segment on the topic opened */
    uint64_t expired;           /* older than the smaller max_age */
    uint64_t too_large;         /* a datagram larger than the dish's datagram size */
    uint64_t no_datagrams;      /* a datagram for a dish without datagram flows */
    uint64_t layers_cut;        /* copies that lost upper layers under pressure */
    uint64_t no_parked;         /* a datagram for a unix dish with no reverse connection parked;
                                 * appended last so an older, smaller size still works */
} weida_dish_drops_t;

/* What weida_dish_recv received. */
enum weida_dish_kind {
    WEIDA_DISH_SEGMENT = 1, /* a segment (or one layer of a layered one), from a stream */
    WEIDA_DISH_DATAGRAM = 2 /* a datagram segment: one packet, layer 0 */
};

/* ------------------------------------------------------------------------ */
/* Completion queue types                                                   */
/* ------------------------------------------------------------------------ */

typedef uint64_t weida_cq_t; /* a completion queue: outcomes drained in batches */

/* One outcome taken from a completion queue (weida_cq_drain). A fixed
 * layout, not size-led: it is an element of an array the caller lends. */
typedef struct weida_completion {
    weida_op_t op;     /* the handle the _async call returned in *op */
    int32_t code;      /* WEIDA_OK or a weida_code, as a callback's code */
    uint32_t reserved; /* 0 */
    uint64_t a;        /* the results, as a callback's a and b */
    uint64_t b;
} weida_completion_t;

/* ------------------------------------------------------------------------ */
/* Connection statistics types                                              */
/* ------------------------------------------------------------------------ */

/* One connected URL of a dialling endpoint (weida_<role>_connection_stats).
 * Times are double seconds. The transport figures are quic-go's
 * measurement of the connection and are valid only when has_transport is 1:
 * a local transport (inproc, unix) has none, and neither has a URL while it
 * is down. quic-go counts QUIC packets (coalesced handshake packets count
 * one each) and bytes without UDP/IP headers; it does not expose the MTU. */
typedef struct weida_connection_stats {
    size_t size;
    int32_t live;               /* 1: the URL has a connection now */
    int32_t has_transport;      /* 1: the fields rtt .. rx_bytes are valid */
    double age;                 /* seconds the connection has been live; 0 while down */
    uint64_t redials;           /* connections made after the first */
    double rtt;                 /* smoothed round-trip time */
    double min_rtt;
    double latest_rtt;
    double rtt_variation;       /* mean deviation */
    uint64_t congestion_window; /* bytes, QUIC packet overhead included */
    uint64_t lost_packets;      /* may fall: a packet declared lost can still arrive */
    uint64_t lost_bytes;
    uint64_t tx_packets;        /* sent, retransmissions included */
    uint64_t tx_bytes;
    uint64_t rx_packets;        /* received */
    uint64_t rx_bytes;
    /* The peer's own path report (PROTOCOL.md §8.9), its newest record: only
     * over QUIC with path_report on both runtimes, once the first arrived
     * (right after the connection opened, then every 2 s). A remote_ figure
     * is valid only when its WEIDA_REMOTE_ bit is set in remote_known: the
     * peer states only what its stack measures. */
    int32_t has_remote;         /* 1: the remote_ fields below hold a record */
    uint32_t reserved;          /* 0 */
    double remote_rtt;          /* the peer's smoothed RTT */
    double remote_age;          /* seconds since the record arrived */
    uint32_t remote_known;      /* WEIDA_REMOTE_* bits: the figures the record stated */
    uint32_t reserved2;         /* 0 */
    double remote_min_rtt;
    uint64_t remote_congestion_window; /* bytes */
    uint64_t remote_congestion_events;
    uint64_t remote_lost_packets;
    uint64_t remote_lost_bytes;
    uint64_t remote_sent_packets;
    uint64_t remote_current_mtu;
    uint64_t remote_tx_datagrams;
    uint64_t remote_tx_bytes;
    uint64_t remote_rx_datagrams;
    uint64_t remote_rx_bytes;
} weida_connection_stats_t;

/* Bits of weida_connection_stats_t.remote_known (bit k: record key k). */
#define WEIDA_REMOTE_RTT               (1u << 0)
#define WEIDA_REMOTE_MIN_RTT           (1u << 1)
#define WEIDA_REMOTE_CONGESTION_WINDOW (1u << 2)
#define WEIDA_REMOTE_CONGESTION_EVENTS (1u << 3)
#define WEIDA_REMOTE_LOST_PACKETS      (1u << 4)
#define WEIDA_REMOTE_LOST_BYTES        (1u << 5)
#define WEIDA_REMOTE_SENT_PACKETS      (1u << 6)
#define WEIDA_REMOTE_CURRENT_MTU       (1u << 7)
#define WEIDA_REMOTE_TX_DATAGRAMS      (1u << 8)
#define WEIDA_REMOTE_TX_BYTES          (1u << 9)
#define WEIDA_REMOTE_RX_DATAGRAMS      (1u << 10)
#define WEIDA_REMOTE_RX_BYTES          (1u << 11)

/*
 * The library itself is built from this header too, with
 * WEIDA_BUILDING_LIBRARY defined: cgo declares the exported functions itself
 * (without const), and two declarations differing in const would not
 * compile. A Go test checks these prototypes against the exports instead.
 */
#ifndef WEIDA_BUILDING_LIBRARY

/* ------------------------------------------------------------------------ */
/* Library, errors, handles                                                 */
/* ------------------------------------------------------------------------ */

/* The library's version, e.g. "0.1.0-dev" (static storage). */
const char *weida_version(void);
/* The ABI the library implements; equal to WEIDA_ABI_VERSION when matched. */
uint32_t weida_abi_version(void);
/* The wire protocol version (0). */
uint64_t weida_wire_version(void);
/* The QUIC ALPN, "weida/0" (static storage). */
const char *weida_alpn(void);
/* "WEIDA_ENAME: description" for any code; never NULL (static storage). */
const char *weida_strerror(int code);
/* The full sentence of the last failure on the calling thread ("" if none).
 * For WEIDA_EUNTRUSTED it contains the fingerprint that answered. */
int weida_last_error(char *buf, size_t cap, size_t *needed);
/* Releases any handle with the drop semantics above. */
int weida_close(weida_handle_t h);
/* Aborts a pending operation: its streams are reset (the peer learns) and
 * its callback fires with WEIDA_ECANCELED, unless it completed first.
 * A finished operation's handle is stale: WEIDA_EBADHANDLE, harmless. */
int weida_op_cancel(weida_op_t op);
/* How many handles are open now: a leak check for tests. */
int weida_handles_live(uint64_t *count);

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */

/* Sets the process's one log callback, for every runtime (made before or
 * after): lines at min_level or above reach fn(user, ...). fn NULL removes
 * it. When this returns, the previous callback is not running on any other
 * thread and is never called again; called from inside the callback, it
 * takes effect for every call not yet begun. Silent until set. */
int weida_set_log_callback(int min_level, weida_log_fn fn, void *user);

/* ------------------------------------------------------------------------ */
/* Runtime                                                                  */
/* ------------------------------------------------------------------------ */

/* opts may be NULL (defaults). */
int weida_runtime_new(const weida_runtime_opts_t *opts, weida_runtime_t *out);
/* Abortive: closes every connection now; the runtime is unusable after.
 * Blocked calls on its endpoints return WEIDA_ECANCELED. */
int weida_runtime_shutdown(weida_runtime_t rt);
/* Graceful end: waits up to seconds for finished transfers' receipts and the
 * peers' consumption, then shuts down as above (the runtime is consumed).
 * Callback: a = delivered, b = outstanding. Canceling the _async form ends
 * the drain early as weida_runtime_shutdown does. */
int weida_runtime_drain(weida_runtime_t rt, double seconds, uint64_t *delivered,
                        uint64_t *outstanding);
int weida_runtime_drain_async(weida_runtime_t rt, double seconds, weida_done_fn cb,
                              void *user, weida_op_t *op);
/* One-way transfers this runtime read and discarded as repeats within its
 * deduplication window (always 0 unless WEIDA_DEDUP_BOUNDED was agreed). */
int weida_runtime_suppressed_duplicates(weida_runtime_t rt, uint64_t *count);
/* The guarantee set the runtime offers on every connection (its offered
 * set, else its required one) into *out, whose size the caller sets. It is
 * the runtime's configuration; a live connection agreed on exactly what
 * the runtime requires, or failed. */
int weida_runtime_offered(weida_runtime_t rt, weida_guarantees_t *out);

/* Dialling endpoints: each verifies servers under trust. opts may be NULL. */
int weida_runtime_requester(weida_runtime_t rt, weida_trust_t trust,
                            const weida_endpoint_opts_t *opts, weida_requester_t *out);
int weida_runtime_pusher(weida_runtime_t rt, weida_trust_t trust,
                         const weida_endpoint_opts_t *opts, weida_pusher_t *out);
int weida_runtime_subscriber(weida_runtime_t rt, weida_trust_t trust,
                             const weida_endpoint_opts_t *opts, weida_subscriber_t *out);
int weida_runtime_pair(weida_runtime_t rt, weida_trust_t trust,
                       const weida_endpoint_opts_t *opts, weida_paired_t *out);
int weida_runtime_surveyor(weida_runtime_t rt, weida_trust_t trust,
                           const weida_endpoint_opts_t *opts, weida_surveyor_t *out);

/* ------------------------------------------------------------------------ */
/* Identity and trust (plain values)                                        */
/* ------------------------------------------------------------------------ */

/* A fresh in-memory key naming no host: meant to be pinned by fingerprint. */
int weida_identity_generate(weida_identity_t *out);
/* A fresh key naming hosts (DNS names or IP literals); names[count]. */
int weida_identity_generate_for(const char *const *names, size_t count,
                                weida_identity_t *out);
/* Reads a chain and key from one PEM file. */
int weida_identity_from_pem_file(const char *path, weida_identity_t *out);
/* "sha256:<64 hex>" of the identity's public key. */
int weida_identity_fingerprint(weida_identity_t id, char *buf, size_t cap, size_t *needed);

/* Trusts only what a dialled address names. */
int weida_trust_by_address(weida_trust_t *out);
/* Trusts one key ("sha256:<64 hex>", else WEIDA_EINVALID_FINGERPRINT). */
int weida_trust_pin(const char *fingerprint, weida_trust_t *out);
/* Trusts certificates chaining to the PEM certificates in path. */
int weida_trust_anchor_file(const char *path, weida_trust_t *out);
/* Trusts every key the file at path lists, one "sha256:<64 hex>" a line,
   "#" starting a comment: what `weida broker --trust-out` writes for a
   cluster's members. WEIDA_EIO, WEIDA_EINVALID_FINGERPRINT (naming the line)
   or WEIDA_ERUNTIME (no key listed) otherwise. */
int weida_trust_pin_file(const char *path, weida_trust_t *out);

/* ------------------------------------------------------------------------ */
/* Binding: a QUIC socket, bus or unix socket serving the runtime's paths  */
/* ------------------------------------------------------------------------ */

/* addr is "ip:port" (port 0: the kernel chooses). opts may be NULL.
 * Closing the binding stops serving its socket. */
int weida_bind_quic(weida_runtime_t rt, const char *addr, weida_identity_t id,
                    const weida_bind_opts_t *opts, weida_binding_t *out);
/* Serves the runtime's paths on the in-process bus named bus: endpoints of
 * any runtime in this process dial weida+inproc://<bus>/<path>, with no
 * socket and no TLS. The name is 1..256 bytes, no byte below 0x20, no '@'
 * and no '/' (else WEIDA_EINVALID_ADDRESS); one binding per name per
 * process (else WEIDA_EADDRINUSE). */
int weida_bind_inproc(weida_runtime_t rt, const char *bus, weida_binding_t *out);
/* Serves the runtime's paths on the AF_UNIX socket at path (mode 0600),
 * dialled as weida+unix://<percent-encoded path>/<path>. A stale socket file
 * is replaced; a live socket or a file that is not a socket is
 * WEIDA_EADDRINUSE. Peers are proved by the kernel (WEIDA_META_LOCAL_PEER).
 * An extension: SURFACE.md §3.7 names only weida_bind_inproc. */
int weida_bind_unix(weida_runtime_t rt, const char *path, weida_binding_t *out);
/* The bound "ip:port" with the real port; the bus name of an in-process
 * binding, the socket path of a unix one. */
int weida_binding_local_addr(weida_binding_t b, char *buf, size_t cap, size_t *needed);
/* "sha256:..." of the key the binding proves; "" (WEIDA_OK) for an
 * in-process or unix binding, which proves no key. */
int weida_binding_fingerprint(weida_binding_t b, char *buf, size_t cap, size_t *needed);
/* The dialling URL of path: a client's whole configuration (the
 * weida+inproc:// or weida+unix:// form on a local binding, with no key). */
int weida_binding_url(weida_binding_t b, const char *path, char *buf, size_t cap,
                      size_t *needed);

/* Registrations at a path (WEIDA_EALREADY_REGISTERED, WEIDA_EINVALID_PATH).
 * Closing the endpoint unregisters the path. */
int weida_binding_replier(weida_binding_t b, const char *path, weida_replier_t *out);
int weida_binding_puller(weida_binding_t b, const char *path, weida_puller_t *out);
int weida_binding_publisher(weida_binding_t b, const char *path, weida_publisher_t *out);
int weida_binding_pair(weida_binding_t b, const char *path, weida_paired_t *out);
int weida_binding_respondent(weida_binding_t b, const char *path, weida_respondent_t *out);
/* A BUS member is bound at path and dials other members under trust. */
int weida_binding_bus(weida_binding_t b, const char *path, weida_trust_t trust,
                      const weida_endpoint_opts_t *opts, weida_bus_t *out);

/* ------------------------------------------------------------------------ */
/* Req/Rep                                                                  */
/* ------------------------------------------------------------------------ */

/* Dials url and adds it to the round-robin; returns once negotiated.
 * A key that is not trusted is WEIDA_EUNTRUSTED naming the key. On every
 * dialling endpoint url may also be a cluster address: member URLs joined
 * by commas, or a portless weida://name/path (port 7443); the connection
 * then goes to the queue's leader, and a NOT_LEADER is followed (see
 * weida_trust_pin_file for the members' keys). */
int weida_requester_connect(weida_requester_t r, const char *url);
int weida_requester_connect_async(weida_requester_t r, const char *url, weida_done_fn cb,
                                  void *user, weida_op_t *op);
/* One whole request and its whole reply (read under max_reply_bytes).
 * Outcomes: the replier's answer is EUNKNOWN_ENDPOINT, EUNSUPPORTED,
 * EREJECTED or ENOREPLY; a loss before the request's FIN is ECONNLOST, after
 * it EINDETERMINATE. Callback: a = reply msg. */
int weida_requester_request(weida_requester_t r, const void *data, size_t len,
                            size_t max_reply_bytes, weida_msg_t *reply);
int weida_requester_request_async(weida_requester_t r, const void *data, size_t len,
                                  size_t max_reply_bytes, weida_done_fn cb, void *user,
                                  weida_op_t *op);
/* Streamed exchange: write the request to *request and finish it; receive
 * the reply from *reply. Callback: a = ostream, b = reply. */
int weida_requester_open(weida_requester_t r, weida_ostream_t *request, weida_reply_t *reply);
int weida_requester_open_async(weida_requester_t r, weida_done_fn cb, void *user,
                               weida_op_t *op);
/* Live connections. */
int weida_requester_peer_count(weida_requester_t r, size_t *count);

/* The next request, read whole under max_bytes (a larger one is refused and
 * skipped). Callback: a = request. */
int weida_replier_accept(weida_replier_t r, size_t max_bytes, weida_request_t *out);
int weida_replier_accept_async(weida_replier_t r, size_t max_bytes, weida_done_fn cb,
                               void *user, weida_op_t *op);
int weida_replier_path(weida_replier_t r, char *buf, size_t cap, size_t *needed);

/* The request's payload: valid until weida_close(req). Its meta is read with
 * weida_meta_text / weida_meta_uint on the request handle. */
int weida_request_payload(weida_request_t req, const void **data, size_t *len);
/* The whole reply (once; a second answer is WEIDA_ENOREPLY). */
int weida_request_reply(weida_request_t req, const void *data, size_t len);
int weida_request_reply_async(weida_request_t req, const void *data, size_t len,
                              weida_done_fn cb, void *user, weida_op_t *op);
/* Answers with a refusal: the asker sees WEIDA_EREJECTED. */
int weida_request_refuse(weida_request_t req);
/* The reporter of the report the asker ordered on its request, once: *out
 * is 0 when it ordered nothing, and on every later call. */
int weida_request_reporter(weida_request_t req, weida_reporter_t *out);

/* ------------------------------------------------------------------------ */
/* Push/Pull                                                                */
/* ------------------------------------------------------------------------ */

int weida_pusher_connect(weida_pusher_t p, const char *url);
int weida_pusher_connect_async(weida_pusher_t p, const char *url, weida_done_fn cb,
                               void *user, weida_op_t *op);
/* One message; returns once written with its FIN queued (or kept in the
 * outbox while no connection is live). Not an application ack. */
int weida_pusher_send(weida_pusher_t p, const void *data, size_t len);
int weida_pusher_send_async(weida_pusher_t p, const void *data, size_t len,
                            weida_done_fn cb, void *user, weida_op_t *op);
/* weida_pusher_send that never waits: *sent = 1 once the message is
 * written with its FIN queued or in the outbox (or dropped there under
 * OUTBOX_DROP, counted); *sent = 0, nothing done, where send would wait
 * (stream credit, flow-control room, outbox room under OUTBOX_BLOCK) and
 * for a message above 16 KiB, a local transport or a connection that
 * numbers its transfers. Errors are send's that need no waiting to know,
 * and, with *sent = 1, the peer's refusal of a message it stopped as its
 * bytes went (it went: do not send it again). An event loop calls it
 * first and starts weida_pusher_send_async only when it says 0; it may be
 * called from a completion callback. */
int weida_pusher_try_send(weida_pusher_t p, const void *data, size_t len, int *sent);
/* Streamed message: write, then finish (whose completion is the transport
 * receipt). Callback: a = ostream. */
int weida_pusher_open(weida_pusher_t p, weida_ostream_t *out);
int weida_pusher_open_async(weida_pusher_t p, weida_done_fn cb, void *user, weida_op_t *op);
/* One message that orders a report from its puller: levels[nlevels] (any
 * order, duplicates allowed; at most 16 distinct) and mode (enum
 * weida_report_mode). *cursors shows how far the puller says the payload got,
 * per level, with no exchange and no reply; it is 0 when nlevels is 0 (an
 * empty order orders nothing). A reserved level or a bad mode is
 * WEIDA_EPROTOCOL before anything is sent. Unlike weida_pusher_send it
 * bypasses the outbox (the report belongs to the connection the message
 * travels): with no live connection it waits for one. Returns once written
 * with its FIN queued. Callback: a = cursors (or 0). */
int weida_pusher_send_reporting(weida_pusher_t p, const void *data, size_t len,
                                const uint64_t *levels, size_t nlevels, int mode,
                                weida_cursors_t *cursors);
int weida_pusher_send_reporting_async(weida_pusher_t p, const void *data, size_t len,
                                      const uint64_t *levels, size_t nlevels, int mode,
                                      weida_done_fn cb, void *user, weida_op_t *op);
/* weida_pusher_open with a report order (as above); the stream's cursors
 * come from weida_ostream_cursors. Callback: a = ostream. */
int weida_pusher_open_reporting(weida_pusher_t p, const uint64_t *levels, size_t nlevels,
                                int mode, weida_ostream_t *out);
int weida_pusher_open_reporting_async(weida_pusher_t p, const uint64_t *levels,
                                      size_t nlevels, int mode, weida_done_fn cb, void *user,
                                      weida_op_t *op);
int weida_pusher_peer_count(weida_pusher_t p, size_t *count);
/* Outbox bodies dropped or lost before they could be written. */
int weida_pusher_dropped(weida_pusher_t p, uint64_t *count);

/* The next message, read whole under max_bytes. Callback: a = msg. */
int weida_puller_recv(weida_puller_t p, size_t max_bytes, weida_msg_t *out);
int weida_puller_recv_async(weida_puller_t p, size_t max_bytes, weida_done_fn cb,
                            void *user, weida_op_t *op);
/* weida_puller_recv that also hands over the reporter of the report the
 * pusher ordered (*reporter = 0 when it ordered none). Report through it
 * once the message is handled, then finish it. Callback: a = msg,
 * b = reporter (or 0). */
int weida_puller_recv_reporting(weida_puller_t p, size_t max_bytes, weida_msg_t *msg,
                                weida_reporter_t *reporter);
int weida_puller_recv_reporting_async(weida_puller_t p, size_t max_bytes, weida_done_fn cb,
                                      void *user, weida_op_t *op);
/* The next message unread, for payloads too large to hold.
 * Callback: a = istream. */
int weida_puller_recv_stream(weida_puller_t p, weida_istream_t *out);
int weida_puller_recv_stream_async(weida_puller_t p, weida_done_fn cb, void *user,
                                   weida_op_t *op);
int weida_puller_path(weida_puller_t p, char *buf, size_t cap, size_t *needed);

/* ------------------------------------------------------------------------ */
/* Pub/Sub                                                                  */
/* ------------------------------------------------------------------------ */

/* Never waits: *reached is how many subscribers got a copy queued (0 is
 * normal). Above the 8 MiB subscriber budget: WEIDA_ELIMIT. */
int weida_publisher_publish(weida_publisher_t p, const char *topic, const void *data,
                            size_t len, size_t *reached);
/* A streamed publication to the subscribers matching now. */
int weida_publisher_open(weida_publisher_t p, const char *topic, weida_fanout_t *out);
int weida_publisher_subscriber_count(weida_publisher_t p, size_t *count);
int weida_publisher_filter_count(weida_publisher_t p, size_t *count);
int weida_publisher_dropped(weida_publisher_t p, uint64_t *count);
/* One topic's drops by cause; *found = 0 when none was counted for it.
 * Set counts->size before the call. */
int weida_publisher_dropped_on(weida_publisher_t p, const char *topic,
                               weida_drop_counts_t *counts, int *found);
int weida_publisher_path(weida_publisher_t p, char *buf, size_t cap, size_t *needed);

int weida_fanout_topic(weida_fanout_t f, char *buf, size_t cap, size_t *needed);
/* Writes chunk to every remaining copy, waiting up to seconds in total for a
 * subscriber without room, which then loses its copy. *left = copies left.
 * Callback: a = left. */
int weida_fanout_write_within(weida_fanout_t f, const void *data, size_t len, double seconds,
                              size_t *left);
int weida_fanout_write_within_async(weida_fanout_t f, const void *data, size_t len,
                                    double seconds, weida_done_fn cb, void *user,
                                    weida_op_t *op);
/* Writes chunk without waiting: a subscriber without room now loses its copy. */
int weida_fanout_write_now(weida_fanout_t f, const void *data, size_t len, size_t *left);
/* Copies still intact. */
int weida_fanout_subscribers(weida_fanout_t f, size_t *count);
/* Ends every copy; *complete = subscribers that got all of it (so far as the
 * sender can tell now). A second finish is WEIDA_ENOREPLY. Closing an
 * unfinished fan-out cancels every copy. */
int weida_fanout_finish(weida_fanout_t f, size_t *complete);

int weida_subscriber_connect(weida_subscriber_t s, const char *url);
int weida_subscriber_connect_async(weida_subscriber_t s, const char *url, weida_done_fn cb,
                                   void *user, weida_op_t *op);
/* "" and "#" take every topic; a filter the grammar refuses is
 * WEIDA_EPROTOCOL. Returns once handed to the transport: the publisher
 * applies it shortly after. */
int weida_subscriber_subscribe(weida_subscriber_t s, const char *filter);
int weida_subscriber_subscribe_async(weida_subscriber_t s, const char *filter,
                                     weida_done_fn cb, void *user, weida_op_t *op);
int weida_subscriber_unsubscribe(weida_subscriber_t s, const char *filter);
int weida_subscriber_unsubscribe_async(weida_subscriber_t s, const char *filter,
                                       weida_done_fn cb, void *user, weida_op_t *op);
/* The next copy, read whole under max_bytes. Callback: a = msg. */
int weida_subscriber_recv(weida_subscriber_t s, size_t max_bytes, weida_msg_t *out);
int weida_subscriber_recv_async(weida_subscriber_t s, size_t max_bytes, weida_done_fn cb,
                                void *user, weida_op_t *op);
/* The next copy unread (a streamed fan-out). Callback: a = istream. */
int weida_subscriber_recv_stream(weida_subscriber_t s, weida_istream_t *out);
int weida_subscriber_recv_stream_async(weida_subscriber_t s, weida_done_fn cb, void *user,
                                       weida_op_t *op);
/* Live publisher connections: the only sign a publisher is gone. */
int weida_subscriber_peer_count(weida_subscriber_t s, size_t *count);
int weida_subscriber_filter_count(weida_subscriber_t s, size_t *count);

/*
 * A queue (the broker, `weida broker`) is consumed by an ordinary
 * subscriber: subscribe to the queue's path, grant credit, receive with
 * weida_subscriber_recv_reporting and settle each message through its
 * reporter. A publisher that is not a queue ignores credit.
 */

/* Sets the credit of every subscription (one per filter per connection):
 * limit is the total number of messages each accepts since it was made,
 * absolute rather than a delta, so a repeated grant changes nothing. Credit
 * starts at 0, so a queue delivers nothing before the first grant; to take
 * n more, grant what was received plus n. A grant not above the standing
 * one is ignored (credit never drops). Later connections get it too, but a
 * redial makes new subscriptions that start over, so up to limit messages
 * may come again there. Returns once sent. Callback: a = b = 0. */
int weida_subscriber_grant(weida_subscriber_t s, uint64_t limit);
int weida_subscriber_grant_async(weida_subscriber_t s, uint64_t limit, weida_done_fn cb,
                                 void *user, weida_op_t *op);
/* The standing grant; 0 before the first. */
int weida_subscriber_granted(weida_subscriber_t s, uint64_t *limit);
/* weida_subscriber_recv that also hands over the reporter of the report
 * the sender ordered (*reporter = 0 when it ordered none). A queue's
 * delivery always orders WEIDA_PROCESSED: it stays unsettled until the
 * reporter reports WEIDA_PROCESSED at the payload's length and finishes.
 * To give a message back, report WEIDA_PROCESSED below its length (0) and
 * finish: the queue delivers it again, with WEIDA_META_DELIVERY_ATTEMPT.
 * (Closing an unfinished reporter that reported nothing holds the message
 * until the subscription or connection ends.) A payload above max_bytes,
 * or cut short, is given back that way at once. Callback: a = msg,
 * b = reporter (or 0). */
int weida_subscriber_recv_reporting(weida_subscriber_t s, size_t max_bytes, weida_msg_t *msg,
                                    weida_reporter_t *reporter);
int weida_subscriber_recv_reporting_async(weida_subscriber_t s, size_t max_bytes,
                                          weida_done_fn cb, void *user, weida_op_t *op);

/* ------------------------------------------------------------------------ */
/* PAIR                                                                     */
/* ------------------------------------------------------------------------ */

/* Dialling end only, once (a second call is WEIDA_ELIMIT). */
int weida_paired_connect(weida_paired_t p, const char *url);
int weida_paired_connect_async(weida_paired_t p, const char *url, weida_done_fn cb,
                               void *user, weida_op_t *op);
int weida_paired_send(weida_paired_t p, const void *data, size_t len);
int weida_paired_send_async(weida_paired_t p, const void *data, size_t len, weida_done_fn cb,
                            void *user, weida_op_t *op);
/* Callback: a = ostream. */
int weida_paired_open(weida_paired_t p, weida_ostream_t *out);
int weida_paired_open_async(weida_paired_t p, weida_done_fn cb, void *user, weida_op_t *op);
/* As weida_pusher_send_reporting / weida_pusher_open_reporting, toward the
 * other end. Callback: a = cursors (or 0); a = ostream. */
int weida_paired_send_reporting(weida_paired_t p, const void *data, size_t len,
                                const uint64_t *levels, size_t nlevels, int mode,
                                weida_cursors_t *cursors);
int weida_paired_send_reporting_async(weida_paired_t p, const void *data, size_t len,
                                      const uint64_t *levels, size_t nlevels, int mode,
                                      weida_done_fn cb, void *user, weida_op_t *op);
int weida_paired_open_reporting(weida_paired_t p, const uint64_t *levels, size_t nlevels,
                                int mode, weida_ostream_t *out);
int weida_paired_open_reporting_async(weida_paired_t p, const uint64_t *levels,
                                      size_t nlevels, int mode, weida_done_fn cb, void *user,
                                      weida_op_t *op);
/* Callback: a = msg. */
int weida_paired_recv(weida_paired_t p, size_t max_bytes, weida_msg_t *out);
int weida_paired_recv_async(weida_paired_t p, size_t max_bytes, weida_done_fn cb, void *user,
                            weida_op_t *op);
/* As weida_puller_recv_reporting. Callback: a = msg, b = reporter (or 0). */
int weida_paired_recv_reporting(weida_paired_t p, size_t max_bytes, weida_msg_t *msg,
                                weida_reporter_t *reporter);
int weida_paired_recv_reporting_async(weida_paired_t p, size_t max_bytes, weida_done_fn cb,
                                      void *user, weida_op_t *op);
/* Callback: a = istream. */
int weida_paired_recv_stream(weida_paired_t p, weida_istream_t *out);
int weida_paired_recv_stream_async(weida_paired_t p, weida_done_fn cb, void *user,
                                   weida_op_t *op);
int weida_paired_path(weida_paired_t p, char *buf, size_t cap, size_t *needed);
int weida_paired_peer_count(weida_paired_t p, size_t *count);

/* ------------------------------------------------------------------------ */
/* SURVEY                                                                   */
/* ------------------------------------------------------------------------ */

/* Adds a respondent; every survey asks every live one. */
int weida_surveyor_connect(weida_surveyor_t s, const char *url);
int weida_surveyor_connect_async(weida_surveyor_t s, const char *url, weida_done_fn cb,
                                 void *user, weida_op_t *op);
/* Asks every live respondent and collects replies (each under
 * max_reply_bytes) until deadline_seconds (> 0). No respondent is an empty
 * survey, not an error. Callback: a = survey. */
int weida_surveyor_survey(weida_surveyor_t s, const void *data, size_t len,
                          double deadline_seconds, size_t max_reply_bytes,
                          weida_survey_t *out);
int weida_surveyor_survey_async(weida_surveyor_t s, const void *data, size_t len,
                                double deadline_seconds, size_t max_reply_bytes,
                                weida_done_fn cb, void *user, weida_op_t *op);
int weida_surveyor_peer_count(weida_surveyor_t s, size_t *count);

/* Set counts->size before the call. */
int weida_survey_counts(weida_survey_t s, weida_survey_counts_t *counts);
/* Reply index (0 .. replies-1), valid until weida_close(s). */
int weida_survey_reply(weida_survey_t s, size_t index, const void **data, size_t *len);

/* The next question, read whole under max_bytes. Callback: a = request. */
int weida_respondent_accept(weida_respondent_t r, size_t max_bytes, weida_request_t *out);
int weida_respondent_accept_async(weida_respondent_t r, size_t max_bytes, weida_done_fn cb,
                                  void *user, weida_op_t *op);
int weida_respondent_path(weida_respondent_t r, char *buf, size_t cap, size_t *needed);

/* ------------------------------------------------------------------------ */
/* BUS                                                                      */
/* ------------------------------------------------------------------------ */

/* Dials another member; it receives this member's sends from now on. */
int weida_bus_connect(weida_bus_t m, const char *url);
int weida_bus_connect_async(weida_bus_t m, const char *url, weida_done_fn cb, void *user,
                            weida_op_t *op);
/* One copy to every live dialled member, never to the sender; never waits
 * for a member. *reached = members reached. Callback: a = reached. */
int weida_bus_send(weida_bus_t m, const void *data, size_t len, size_t *reached);
int weida_bus_send_async(weida_bus_t m, const void *data, size_t len, weida_done_fn cb,
                         void *user, weida_op_t *op);
/* Callback: a = msg. */
int weida_bus_recv(weida_bus_t m, size_t max_bytes, weida_msg_t *out);
int weida_bus_recv_async(weida_bus_t m, size_t max_bytes, weida_done_fn cb, void *user,
                         weida_op_t *op);
int weida_bus_peer_count(weida_bus_t m, size_t *count);
int weida_bus_dropped(weida_bus_t m, uint64_t *count);
int weida_bus_path(weida_bus_t m, char *buf, size_t cap, size_t *needed);

/* ------------------------------------------------------------------------ */
/* Streams                                                                  */
/* ------------------------------------------------------------------------ */

/* Writes payload bytes (waits for flow control). */
int weida_ostream_write(weida_ostream_t o, const void *data, size_t len);
int weida_ostream_write_async(weida_ostream_t o, const void *data, size_t len,
                              weida_done_fn cb, void *user, weida_op_t *op);
/* Sends the FIN and waits for the transport receipt: every byte and the FIN
 * acknowledged by the peer's QUIC stack (not an application ack). A loss
 * after the FIN is WEIDA_EINDETERMINATE. */
int weida_ostream_finish(weida_ostream_t o);
int weida_ostream_finish_async(weida_ostream_t o, weida_done_fn cb, void *user, weida_op_t *op);
/* Resets the stream: the reader sees Canceled, never a complete payload. */
int weida_ostream_cancel(weida_ostream_t o);
/* The cursors of the report the stream ordered, once: *out is 0 when it
 * ordered nothing, and on every later call. */
int weida_ostream_cursors(weida_ostream_t o, weida_cursors_t *out);

/* Reads up to cap bytes into buf (cap bounds one piece, not the payload);
 * at the end *n = 0 and the result is WEIDA_END. Callback: a = n (code
 * WEIDA_END at the end); buf stays in use until the callback runs. */
int weida_istream_read(weida_istream_t i, void *buf, size_t cap, size_t *n);
int weida_istream_read_async(weida_istream_t i, void *buf, size_t cap, weida_done_fn cb,
                             void *user, weida_op_t *op);
/* Reads the rest whole under max_bytes. Callback: a = msg. */
int weida_istream_collect(weida_istream_t i, size_t max_bytes, weida_msg_t *out);
int weida_istream_collect_async(weida_istream_t i, size_t max_bytes, weida_done_fn cb,
                                void *user, weida_op_t *op);
/* The reporter of the report the sender ordered, once: *out is 0 when it
 * ordered nothing, and on every later call. */
int weida_istream_reporter(weida_istream_t i, weida_reporter_t *out);

/* Waits for the reply half of an opened exchange: the replier's ERROR is
 * its code; a loss while waiting is WEIDA_EINDETERMINATE. Callback:
 * a = istream. */
int weida_reply_recv(weida_reply_t r, weida_istream_t *out);
int weida_reply_recv_async(weida_reply_t r, weida_done_fn cb, void *user, weida_op_t *op);

/* ------------------------------------------------------------------------ */
/* Cursors and reporters                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A sender that ordered a report watches its cursors: per ordered level, the
 * highest payload offset the receiver reported. Offsets are absolute (bytes
 * [0, offset) reached the level), so a repeated or late record changes
 * nothing, and a level nobody reports stays absent. The report ends when
 * the receiver finishes it, when its stream is reset or when the
 * connection ends; none of these is an error, and they are not told apart.
 * A receiver that reports nothing opens nothing, so a report may also stay
 * silent until the connection ends: wait with a deadline, and close the
 * cursors once they no longer matter (closing stops the receiver's report
 * silently; a blocked wait returns WEIDA_ECANCELED).
 */

/* Waits until the cursors moved since the last change this handle returned:
 * WEIDA_OK (read them with weida_cursors_snapshot), WEIDA_END once the
 * report ended and every change was returned (no more will come), or
 * WEIDA_ETIMEDOUT when seconds passed first (the report goes on). Unlike
 * other deadlines, a negative seconds waits without one. One wait runs at a
 * time per handle; others queue. Callback: code as above, a = b = 0. */
int weida_cursors_changed(weida_cursors_t c, double seconds);
int weida_cursors_changed_async(weida_cursors_t c, double seconds, weida_done_fn cb,
                                void *user, weida_op_t *op);
/* The highest offset reported for level; *present = 0 when the level was
 * not ordered or nobody reported it yet. */
int weida_cursors_offset(weida_cursors_t c, uint64_t level, uint64_t *offset, int *present);
/* The levels reported so far, ascending, and their offsets: parallel
 * arrays of cap entries each. *n receives how many there are; when cap is
 * too small what fits is written and the result is WEIDA_ETRUNCATED. The
 * arrays may be NULL when cap is 0, to ask for the count. */
int weida_cursors_snapshot(weida_cursors_t c, uint64_t *levels, uint64_t *offsets, size_t cap,
                           size_t *n);

/*
 * A receiver answers an order with its reporter (from recv_reporting,
 * weida_istream_reporter or weida_request_reporter). Nothing here waits:
 * records go out in the background, best effort (a sender that stopped
 * listening, or a lost connection, ends the report and later calls change
 * nothing). Always finish a reporter: the sender sees its report end only
 * then. Closing an unfinished reporter finishes it.
 */

/* States that payload bytes [0, offset) reached level. A level the sender did
 * not order is ignored, not refused, and so is an offset not beyond the
 * level's last. After weida_reporter_finish: WEIDA_ENOREPLY; an offset above
 * 2^62-1: WEIDA_EPROTOCOL. */
int weida_reporter_report(weida_reporter_t r, uint64_t level, uint64_t offset);
/* Ends the report: the latest offset of every reported level goes out, then
 * the end. A second finish is WEIDA_ENOREPLY. */
int weida_reporter_finish(weida_reporter_t r);
/* The levels the sender ordered, ascending, under the rule of
 * weida_cursors_snapshot (at most 16). */
int weida_reporter_levels(weida_reporter_t r, uint64_t *levels, size_t cap, size_t *n);
/* The mode the sender asked for (enum weida_report_mode). */
int weida_reporter_mode(weida_reporter_t r, int *mode);

/* ------------------------------------------------------------------------ */
/* Messages and meta                                                        */
/* ------------------------------------------------------------------------ */

/* The payload the library allocated: valid until weida_close(m). */
int weida_msg_data(weida_msg_t m, const void **data, size_t *len);

/* Meta of a msg, request or istream handle. *present = 0 when the sender
 * (or the transport, for WEIDA_META_PEER) said nothing, and a number field
 * then holds its default (0; 1 for WEIDA_META_DELIVERY_ATTEMPT); a text
 * field asked as a number, or a number as text, is WEIDA_EINVAL. A
 * requester's reply (its msg, or the istream of weida_reply_recv) carries
 * WEIDA_META_ACHIEVED. */
int weida_meta_text(weida_handle_t h, int field, char *buf, size_t cap, size_t *needed,
                    int *present);
int weida_meta_uint(weida_handle_t h, int field, uint64_t *value, int *present);
/* The levels of the report the sender ordered, ascending, under the rule of
 * weida_cursors_snapshot; *present = 0 when it ordered nothing. The mode and
 * id are WEIDA_META_REPORT_MODE and WEIDA_META_REPORT_ID. */
int weida_meta_report_levels(weida_handle_t h, uint64_t *levels, size_t cap, size_t *n,
                             int *present);

/* ------------------------------------------------------------------------ */
/* RADIO/DISH                                                               */
/* ------------------------------------------------------------------------ */

/*
 * A radio fans segments out to the dishes that joined a matching filter,
 * losing rather than waiting: a segment is a unit whose parts depend only on
 * each other (a voice frame, a group of pictures), and the newest one on a
 * topic is what matters, so opening a segment supersedes the older copies
 * still in flight on its topic. Nothing on a radio waits for a dish (no
 * call has an _async form): a copy without room is lost and counted for
 * that dish alone (weida_radio_dish_drops). A segment may have layers 0..15
 * (an enhancement layer is useless without the ones below it); a dish under
 * pressure loses the top layers first. Datagram segments need
 * weida_runtime_opts_t.datagrams on both runtimes.
 */

/* Registers a radio at path. */
int weida_binding_radio(weida_binding_t b, const char *path, weida_radio_t *out);
/* Opens the next segment on topic (numbered one above the topic's last,
 * from 0) for the dishes that match it now. opts may be NULL (no max age,
 * priority 0). A topic longer than the wire allows is WEIDA_EPROTOCOL. */
int weida_radio_segment(weida_radio_t r, const char *topic, const weida_segment_opts_t *opts,
                        weida_segment_t *out);
/* Sends payload as a one-packet segment on topic to every matching dish
 * and returns how many dishes took it in *reached. It is never turned into
 * a stream: a dish without datagrams, or whose datagram size it exceeds,
 * loses it (counted in its drops, not an error). */
int weida_radio_datagram(weida_radio_t r, const char *topic, const void *data, size_t len,
                         size_t *reached);
/* The dish connections holding a join here. */
int weida_radio_dish_count(weida_radio_t r, size_t *count);
/* Whole segments lost over every dish, whatever the cause (layers cut are
 * not counted here). */
int weida_radio_dropped(weida_radio_t r, uint64_t *count);
/* Each connected dish's losses, into an array of cap structs. Set
 * drops[0].size = sizeof(weida_dish_drops_t): the library writes every
 * element at that stride (and sets its size). *n receives how many dishes
 * there are; when cap is too small what fits is written and the result is
 * WEIDA_ETRUNCATED. drops may be NULL when cap is 0, to ask for the count. */
int weida_radio_dish_drops(weida_radio_t r, weida_dish_drops_t *drops, size_t cap, size_t *n);
int weida_radio_path(weida_radio_t r, char *buf, size_t cap, size_t *needed);

/* Writes chunk to layer 0 (weida_segment_write) or to layer 0..15 and
 * returns in *reached how many copies took it. A copy without room first
 * gives up its layers above this one, then this layer and above; losing
 * layer 0 loses the segment for that dish. A layer above a dish's cap is
 * never sent to it. A layer above 15, or a chunk above the dish budget, is
 * WEIDA_ELIMIT; after finishing (the layer or the segment) WEIDA_ENOREPLY. */
int weida_segment_write(weida_segment_t s, const void *data, size_t len, size_t *reached);
int weida_segment_write_layer(weida_segment_t s, uint32_t layer, const void *data, size_t len,
                              size_t *reached);
/* Ends one layer on every copy. */
int weida_segment_finish_layer(weida_segment_t s, uint32_t layer);
/* Ends every layer; *alive receives how many copies are not lost. A second
 * finish is WEIDA_ENOREPLY. Closing an unfinished segment cancels it: every
 * copy is reset CANCELED, so no dish waits for the rest of it and none takes
 * the half-written unit for a whole one. */
int weida_segment_finish(weida_segment_t s, size_t *alive);
/* The segment's number on its topic. */
int weida_segment_number(weida_segment_t s, uint64_t *number);

/* A dish verifying radios under trust. opts may be NULL. */
int weida_runtime_dish(weida_runtime_t rt, weida_trust_t trust, const weida_endpoint_opts_t *opts,
                       weida_dish_t *out);
/* Dials a radio's URL and sends it every join held so far; a dish may
 * connect to several radios. */
int weida_dish_connect(weida_dish_t d, const char *url);
int weida_dish_connect_async(weida_dish_t d, const char *url, weida_done_fn cb, void *user,
                             weida_op_t *op);
/* Joins filter with opts (NULL: no max age, every layer) on every
 * connection, now and after every redial. A filter matches topics as a
 * subscriber's does: split on '.', "*" is one segment, a final "#" the
 * rest, "" every topic (so "cam.#" takes "cam" and "cam.front"). Joining a
 * filter again updates its terms. Returns once the join is handed to the
 * transport: the radio applies it shortly after, and its admission policy
 * may refuse it silently. A filter the grammar refuses is WEIDA_EPROTOCOL. */
int weida_dish_join(weida_dish_t d, const char *filter, const weida_join_opts_t *opts);
int weida_dish_join_async(weida_dish_t d, const char *filter, const weida_join_opts_t *opts,
                          weida_done_fn cb, void *user, weida_op_t *op);
/* Drops filter; an unknown one is not an error. */
int weida_dish_leave(weida_dish_t d, const char *filter);
int weida_dish_leave_async(weida_dish_t d, const char *filter, weida_done_fn cb, void *user,
                           weida_op_t *op);
/* Waits for the next segment or datagram segment from any radio: *out is
 * a msg whose meta has WEIDA_META_TOPIC, WEIDA_META_SEGMENT and
 * WEIDA_META_LAYER (each layer of a layered segment is a msg of its own),
 * *kind an enum weida_dish_kind. A segment above
 * max_bytes is discarded (WEIDA_ELIMIT; the dish stays usable); a segment
 * the radio reset on the way is a gap in the numbers, not an error.
 * Callback: a = msg, b = kind. */
int weida_dish_recv(weida_dish_t d, size_t max_bytes, weida_msg_t *out, int *kind);
int weida_dish_recv_async(weida_dish_t d, size_t max_bytes, weida_done_fn cb, void *user,
                          weida_op_t *op);
/* Live radio connections. */
int weida_dish_peer_count(weida_dish_t d, size_t *count);

/* ------------------------------------------------------------------------ */
/* Completion queues: the third callback form                               */
/* ------------------------------------------------------------------------ */

/*
 * A binding whose callbacks must first enter an interpreter (a Python or
 * Node event loop) can have outcomes queued instead of called back: pass
 * weida_cq_post as an _async call's cb and the cq, cast to void *, as its
 * user. No code of the caller's runs on a library thread then. The
 * outcome is appended to the queue under the op handle the call returned,
 * and the queue's descriptor is readable whenever outcomes wait: an
 * event loop watches it and takes every waiting outcome with one
 * weida_cq_drain per wakeup. Everything else is as for a callback:
 * weida_op_cancel, buffers lent until the outcome, result handles owned by
 * the caller once drained. A cq that is not a live cq handle makes the
 * _async call fail with WEIDA_EBADHANDLE, nothing started. Closing a cq
 * drops outcomes not yet drained (their result handles stay open):
 * close it only once its operations are done and drained.
 * An operation that needs no waiting may be done on the calling thread,
 * its outcome queued before the _async call returns (today: a pusher's
 * send of at most 16 KiB with stream credit and window at hand, or into
 * the outbox with room): no thread is woken to run it or to report it.
 */
/* A new, empty completion queue. */
int weida_cq_new(weida_cq_t *out);
/* The descriptor that is readable while the queue holds outcomes (an
 * eventfd on Linux, a pipe elsewhere). It may also wake a poller with
 * nothing waiting (a drain then takes 0 and clears it). It belongs to the
 * queue: poll it, never read, write or close it. */
int weida_cq_fd(weida_cq_t cq, int *fd);
/* Moves up to cap waiting outcomes into out, oldest first, and sets *n to
 * how many (0 when none wait; it never waits). A failed outcome (code not
 * WEIDA_OK) ends the batch: it is out[*n - 1], and weida_last_error() on
 * this thread returns its sentence until this thread's next failure. */
int weida_cq_drain(weida_cq_t cq, weida_completion_t *out, size_t cap, size_t *n);
/* The callback that means "queue it": see above. Called directly, it
 * queues {op 0, code, a, b} into the cq user names (a stale one is
 * ignored), which wakes the queue's reader. */
void weida_cq_post(void *user, int code, uint64_t a, uint64_t b);

/* ------------------------------------------------------------------------ */
/* Connection statistics                                                    */
/* ------------------------------------------------------------------------ */

/* The index-th URL the endpoint connected (0-based, in connect order; an
 * index names the same URL for the endpoint's life) into *stats, whose size
 * the caller sets, and its URL, exactly as dialled, into (url, cap, needed)
 * as any text out (WEIDA_ETRUNCATED with *stats filled when cap is short).
 * Past the last URL: WEIDA_END, nothing written. A bound PAIR dials nothing
 * and has no URLs. Never waits. */
int weida_requester_connection_stats(weida_requester_t r, size_t index,
                                     weida_connection_stats_t *stats, char *url, size_t cap,
                                     size_t *needed);
int weida_pusher_connection_stats(weida_pusher_t p, size_t index,
                                  weida_connection_stats_t *stats, char *url, size_t cap,
                                  size_t *needed);
int weida_subscriber_connection_stats(weida_subscriber_t s, size_t index,
                                      weida_connection_stats_t *stats, char *url, size_t cap,
                                      size_t *needed);
int weida_paired_connection_stats(weida_paired_t p, size_t index,
                                  weida_connection_stats_t *stats, char *url, size_t cap,
                                  size_t *needed);
int weida_surveyor_connection_stats(weida_surveyor_t s, size_t index,
                                    weida_connection_stats_t *stats, char *url, size_t cap,
                                    size_t *needed);
int weida_bus_connection_stats(weida_bus_t m, size_t index, weida_connection_stats_t *stats,
                               char *url, size_t cap, size_t *needed);
int weida_dish_connection_stats(weida_dish_t d, size_t index,
                                weida_connection_stats_t *stats, char *url, size_t cap,
                                size_t *needed);

#endif /* WEIDA_BUILDING_LIBRARY */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEIDA_H */
