'use strict';
/**
 * weida.h's return codes (enum weida_code), completion levels (enum
 * weida_level) and report modes (enum weida_report_mode).
 * Generated from include/weida.h by build/gen-bindings-tables.py: do not edit.
 * @module weida/lib/abi
 */

/** enum weida_code: C name -> code. */
const CODES = Object.freeze({
  WEIDA_OK: 0,
  WEIDA_ERUNTIME: 1, // Runtime (RuntimeFailure)
  WEIDA_EINVALID_ADDRESS: 2, // InvalidAddress
  WEIDA_EINVALID_PATH: 3, // InvalidEndpointPath
  WEIDA_EINVALID_FINGERPRINT: 4, // InvalidFingerprint
  WEIDA_EALREADY_REGISTERED: 5, // AlreadyRegistered
  WEIDA_EADDRINUSE: 6, // AddressInUse
  WEIDA_ENOTCONN: 7, // NotConnected
  WEIDA_ECONNLOST: 8, // ConnectionLost: definite failure
  WEIDA_ENEGOTIATION: 9, // Negotiation
  WEIDA_EPROTOCOL: 10, // Protocol
  WEIDA_EREJECTED: 11, // Rejected
  WEIDA_EUNKNOWN_ENDPOINT: 12, // UnknownEndpoint
  WEIDA_EUNSUPPORTED: 13, // Unsupported
  WEIDA_ENOPARKED: 14, // NoParkedConnection
  WEIDA_ENOREPLY: 15, // NoReply
  WEIDA_ECANCELED: 16, // Canceled
  WEIDA_EEXPIRED: 17, // Expired
  WEIDA_EINDETERMINATE: 18, // Indeterminate: outcome unknown
  WEIDA_ELIMIT: 19, // LimitExceeded
  WEIDA_ENODATAGRAMS: 20, // DatagramsUnavailable
  WEIDA_ETOOLARGE: 21, // TooLarge
  WEIDA_ETLS: 22, // Tls
  WEIDA_EUNTRUSTED: 23, // Untrusted: the text names the key
  WEIDA_EUNTRUSTED_PRINCIPAL: 24, // UntrustedPrincipal
  WEIDA_EIO: 25, // Io
  WEIDA_ETRANSPORT: 26, // Transport
  WEIDA_EBADHANDLE: 100, // zero, stale, forged or wrong-role handle
  WEIDA_EINVAL: 101, // bad argument: NULL pointer, bad number
  WEIDA_ETIMEDOUT: 102, // a deadline passed (not a failure of the peer)
  WEIDA_END: 103, // not a failure: end of stream / no more
  WEIDA_EINTERNAL: 104, // the library caught an internal fault
  WEIDA_ETRUNCATED: 105, // a text buffer was too small; see *needed
});

/** The library's error kinds in weida.h's order: [class name, code, the library's variant name]. */
const KINDS = Object.freeze([
  ['RuntimeFailure', 1, 'Runtime'],
  ['InvalidAddress', 2, 'InvalidAddress'],
  ['InvalidEndpointPath', 3, 'InvalidEndpointPath'],
  ['InvalidFingerprint', 4, 'InvalidFingerprint'],
  ['AlreadyRegistered', 5, 'AlreadyRegistered'],
  ['AddressInUse', 6, 'AddressInUse'],
  ['NotConnected', 7, 'NotConnected'],
  ['ConnectionLost', 8, 'ConnectionLost'],
  ['Negotiation', 9, 'Negotiation'],
  ['Protocol', 10, 'Protocol'],
  ['Rejected', 11, 'Rejected'],
  ['UnknownEndpoint', 12, 'UnknownEndpoint'],
  ['Unsupported', 13, 'Unsupported'],
  ['NoParkedConnection', 14, 'NoParkedConnection'],
  ['NoReply', 15, 'NoReply'],
  ['Canceled', 16, 'Canceled'],
  ['Expired', 17, 'Expired'],
  ['Indeterminate', 18, 'Indeterminate'],
  ['LimitExceeded', 19, 'LimitExceeded'],
  ['DatagramsUnavailable', 20, 'DatagramsUnavailable'],
  ['TooLarge', 21, 'TooLarge'],
  ['Tls', 22, 'Tls'],
  ['Untrusted', 23, 'Untrusted'],
  ['UntrustedPrincipal', 24, 'UntrustedPrincipal'],
  ['Io', 25, 'Io'],
  ['Transport', 26, 'Transport'],
]);

/** enum weida_level: completion levels (the space is open above APPLICATION_FLOOR). */
const LEVELS = Object.freeze({
  TRANSPORT_RECEIPT: 1, // the receiver's transport holds the bytes
  ACCEPTED: 2, // a hop took responsibility in memory
  STORED: 3, // a store holds the bytes up to the offset
  REPLICATED: 4, // the bytes up to the offset are replicated
  PROCESSED: 5, // the consumer settled the bytes up to the offset
  APPLICATION_FLOOR: 16, // the first level an application may name
});

/** enum weida_report_mode. */
const REPORT_MODES = Object.freeze({
  PROGRESS: 0, // as levels advance, and the latest at the end (default)
  FINAL_ONLY: 1, // exactly one offset per level, when the report ends
});

module.exports = { CODES, KINDS, LEVELS, REPORT_MODES };
