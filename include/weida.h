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
typedef uint64_t weida_binding_t;    /* one QUIC socket serving paths */
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

/* ------------------------------------------------------------------------ */
/* Option and result structs: each leads with its own size, so it can grow  */
/* compatibly. Set size = sizeof(the struct) and zero what you do not set.  */
/* A NULL options pointer means every default.                              */
/* ------------------------------------------------------------------------ */

typedef struct weida_runtime_opts {
    size_t size;
    uint32_t worker_threads; /* accepted for parity; Go schedules itself */
    int32_t datagrams;       /* 1: datagram flows (not built yet: EUNSUPPORTED) */
    int32_t path_report;     /* 1: path statistics (not built yet: EUNSUPPORTED) */
    uint32_t endpoint_queue; /* accept-queue depth per path; 0 = 256 */
    uint64_t send_timeout_ms; /* bound on waiting for a live connection; 0 = none */
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
    /* numbers */
    WEIDA_META_CONTENT_LEN = 16, /* the sender's advisory length */
    WEIDA_META_SEQUENCE = 17,    /* number in its producer's sequence (per topic, else path) */
    WEIDA_META_MISSED = 18,      /* numbers of that producer missed just before this one */
    WEIDA_META_REPORT_MODE = 19, /* enum weida_report_mode of the report ordered */
    WEIDA_META_REPORT_ID = 20,   /* the id the sender gave its report on the connection */
    WEIDA_META_SEGMENT = 21,     /* reserved: RADIO/DISH (EUNSUPPORTED for now) */
    WEIDA_META_LAYER = 22        /* reserved: RADIO/DISH (EUNSUPPORTED for now) */
};

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

/* ------------------------------------------------------------------------ */
/* Binding: a QUIC socket serving the runtime's paths                       */
/* ------------------------------------------------------------------------ */

/* addr is "ip:port" (port 0: the kernel chooses). opts may be NULL.
 * Closing the binding stops serving its socket. */
int weida_bind_quic(weida_runtime_t rt, const char *addr, weida_identity_t id,
                    const weida_bind_opts_t *opts, weida_binding_t *out);
/* The bound "ip:port" with the real port. */
int weida_binding_local_addr(weida_binding_t b, char *buf, size_t cap, size_t *needed);
/* "sha256:..." of the key the binding proves. */
int weida_binding_fingerprint(weida_binding_t b, char *buf, size_t cap, size_t *needed);
/* The dialling URL of path: a client's whole configuration. */
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
 * A key that is not trusted is WEIDA_EUNTRUSTED naming the key. */
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
 * (or the transport, for WEIDA_META_PEER) said nothing; a text field asked
 * as a number, or a number as text, is WEIDA_EINVAL. */
int weida_meta_text(weida_handle_t h, int field, char *buf, size_t cap, size_t *needed,
                    int *present);
int weida_meta_uint(weida_handle_t h, int field, uint64_t *value, int *present);
/* The levels of the report the sender ordered, ascending, under the rule of
 * weida_cursors_snapshot; *present = 0 when it ordered nothing. The mode and
 * id are WEIDA_META_REPORT_MODE and WEIDA_META_REPORT_ID. */
int weida_meta_report_levels(weida_handle_t h, uint64_t *levels, size_t cap, size_t *n,
                             int *present);

#endif /* WEIDA_BUILDING_LIBRARY */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEIDA_H */
