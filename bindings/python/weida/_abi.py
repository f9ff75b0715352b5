"""weida.h's return codes (enum weida_code), completion levels (enum
weida_level) and report modes (enum weida_report_mode).

Generated from include/weida.h by build/gen-bindings-tables.py: do not edit.
"""

# enum weida_code
OK = 0
ERUNTIME = 1  # Runtime (RuntimeFailure)
EINVALID_ADDRESS = 2  # InvalidAddress
EINVALID_PATH = 3  # InvalidEndpointPath
EINVALID_FINGERPRINT = 4  # InvalidFingerprint
EALREADY_REGISTERED = 5  # AlreadyRegistered
EADDRINUSE = 6  # AddressInUse
ENOTCONN = 7  # NotConnected
ECONNLOST = 8  # ConnectionLost: definite failure
ENEGOTIATION = 9  # Negotiation
EPROTOCOL = 10  # Protocol
EREJECTED = 11  # Rejected
EUNKNOWN_ENDPOINT = 12  # UnknownEndpoint
EUNSUPPORTED = 13  # Unsupported
ENOPARKED = 14  # NoParkedConnection
ENOREPLY = 15  # NoReply
ECANCELED = 16  # Canceled
EEXPIRED = 17  # Expired
EINDETERMINATE = 18  # Indeterminate: outcome unknown
ELIMIT = 19  # LimitExceeded
ENODATAGRAMS = 20  # DatagramsUnavailable
ETOOLARGE = 21  # TooLarge
ETLS = 22  # Tls
EUNTRUSTED = 23  # Untrusted: the text names the key
EUNTRUSTED_PRINCIPAL = 24  # UntrustedPrincipal
EIO = 25  # Io
ETRANSPORT = 26  # Transport
EBADHANDLE = 100  # zero, stale, forged or wrong-role handle
EINVAL = 101  # bad argument: NULL pointer, bad number
ETIMEDOUT = 102  # a deadline passed (not a failure of the peer)
END = 103  # not a failure: end of stream / no more
EINTERNAL = 104  # the library caught an internal fault
ETRUNCATED = 105  # a text buffer was too small; see *needed

#: The library's error kinds in weida.h's order: (code, C name, the
#: library's variant name, the binding's class name).
KINDS = (
    (1, "WEIDA_ERUNTIME", "Runtime", "RuntimeFailure"),
    (2, "WEIDA_EINVALID_ADDRESS", "InvalidAddress", "InvalidAddress"),
    (3, "WEIDA_EINVALID_PATH", "InvalidEndpointPath", "InvalidEndpointPath"),
    (4, "WEIDA_EINVALID_FINGERPRINT", "InvalidFingerprint", "InvalidFingerprint"),
    (5, "WEIDA_EALREADY_REGISTERED", "AlreadyRegistered", "AlreadyRegistered"),
    (6, "WEIDA_EADDRINUSE", "AddressInUse", "AddressInUse"),
    (7, "WEIDA_ENOTCONN", "NotConnected", "NotConnected"),
    (8, "WEIDA_ECONNLOST", "ConnectionLost", "ConnectionLost"),
    (9, "WEIDA_ENEGOTIATION", "Negotiation", "Negotiation"),
    (10, "WEIDA_EPROTOCOL", "Protocol", "Protocol"),
    (11, "WEIDA_EREJECTED", "Rejected", "Rejected"),
    (12, "WEIDA_EUNKNOWN_ENDPOINT", "UnknownEndpoint", "UnknownEndpoint"),
    (13, "WEIDA_EUNSUPPORTED", "Unsupported", "Unsupported"),
    (14, "WEIDA_ENOPARKED", "NoParkedConnection", "NoParkedConnection"),
    (15, "WEIDA_ENOREPLY", "NoReply", "NoReply"),
    (16, "WEIDA_ECANCELED", "Canceled", "Canceled"),
    (17, "WEIDA_EEXPIRED", "Expired", "Expired"),
    (18, "WEIDA_EINDETERMINATE", "Indeterminate", "Indeterminate"),
    (19, "WEIDA_ELIMIT", "LimitExceeded", "LimitExceeded"),
    (20, "WEIDA_ENODATAGRAMS", "DatagramsUnavailable", "DatagramsUnavailable"),
    (21, "WEIDA_ETOOLARGE", "TooLarge", "TooLarge"),
    (22, "WEIDA_ETLS", "Tls", "Tls"),
    (23, "WEIDA_EUNTRUSTED", "Untrusted", "Untrusted"),
    (24, "WEIDA_EUNTRUSTED_PRINCIPAL", "UntrustedPrincipal", "UntrustedPrincipal"),
    (25, "WEIDA_EIO", "Io", "Io"),
    (26, "WEIDA_ETRANSPORT", "Transport", "Transport"),
)

# enum weida_level
TRANSPORT_RECEIPT = 1  #: the receiver's transport holds the bytes
ACCEPTED = 2  #: a hop took responsibility in memory
STORED = 3  #: a store holds the bytes up to the offset
REPLICATED = 4  #: the bytes up to the offset are replicated
PROCESSED = 5  #: the consumer settled the bytes up to the offset
APPLICATION_FLOOR = 16  #: the first level an application may name

# enum weida_report_mode
PROGRESS = 0  #: as levels advance, and the latest at the end (default)
FINAL_ONLY = 1  #: exactly one offset per level, when the report ends
