'use strict';
/**
 * The error classes: one Error subclass per library error kind, in the
 * order of weida.h's codes 1..26, under the common base {@link WeidaError}.
 * The ABI's own failures (a bad or closed handle, a bad argument, an
 * internal fault, an unexpected code) are {@link RuntimeFailure}, whose
 * `code` is then the ABI code (100..105).
 * @module weida/lib/errors
 */
const native = require('./native');

/**
 * Base of every weida failure. `message` is the library's own sentence (no
 * second wording); `code` is the C code (19, as in weida.h and on Python's
 * errors), `errno` the same number (kept from before `code` was numeric),
 * `codeName` the C code's name (`'WEIDA_ELIMIT'`) and `kind` the library's
 * variant name (`'LimitExceeded'`; `'Runtime'` for {@link RuntimeFailure}).
 */
class WeidaError extends Error {
  /**
   * @param {string} message the library's sentence
   * @param {number} [errno] the C code; defaults to the class's own
   */
  constructor(message, errno) {
    super(message);
    const own = this.constructor.errno;
    /** @type {number} */
    this.errno = errno ?? own ?? 0;
    /** @type {number} */
    this.code = this.errno;
    /** @type {string} */
    this.codeName = codeName(this.errno);
    /** @type {string} */
    this.kind = this.constructor.kind ?? 'Weida';
  }

  get name() {
    return this.constructor.name;
  }
}

/** "WEIDA_ELIMIT" from weida_strerror's "WEIDA_ELIMIT: description". */
function codeName(errno) {
  const text = native.strerror(errno);
  const colon = text.indexOf(':');
  return colon > 0 ? text.slice(0, colon) : `WEIDA_E${errno}`;
}

// [class name, C code, library variant, doc] in weida.h's order.
const KINDS = [
  ['RuntimeFailure', 1, 'Runtime', 'The runtime failed or was used wrongly (the library\'s Runtime error).'],
  ['InvalidAddress', 2, '', 'An address or URL is not valid.'],
  ['InvalidEndpointPath', 3, '', 'An endpoint path is not valid.'],
  ['InvalidFingerprint', 4, '', 'A fingerprint is not sha256:<64 hex>.'],
  ['AlreadyRegistered', 5, '', 'The path already has an endpoint.'],
  ['AddressInUse', 6, '', 'The local address is in use.'],
  ['NotConnected', 7, '', 'The endpoint has no connection.'],
  ['ConnectionLost', 8, '', 'The connection was lost before the outcome was settled: a definite failure.'],
  ['Negotiation', 9, '', 'The peers could not agree on terms.'],
  ['Protocol', 10, '', 'A protocol rule was broken, or a reserved value was named.'],
  ['Rejected', 11, '', 'The peer refused it.'],
  ['UnknownEndpoint', 12, '', 'No endpoint is registered at that path.'],
  ['Unsupported', 13, '', 'The endpoint or the library does not support it.'],
  ['NoParkedConnection', 14, '', 'No parked reverse connection.'],
  ['NoReply', 15, '', 'No reply: unanswered, or a handle already spent (second reply or finish).'],
  ['Canceled', 16, '', 'Canceled: the endpoint was closed or the transfer reset.'],
  ['Expired', 17, '', 'The send timeout expired.'],
  ['Indeterminate', 18, '', 'The outcome is unknown: a sibling of ConnectionLost, never a subclass.'],
  ['LimitExceeded', 19, '', 'A limit or receive ceiling was exceeded; the payload was refused.'],
  ['DatagramsUnavailable', 20, '', 'Datagrams are not available on this connection.'],
  ['TooLarge', 21, '', 'Too large for a datagram.'],
  ['Tls', 22, '', 'TLS failed.'],
  ['Untrusted', 23, '', 'The peer\'s key is not trusted; the message names the key that answered.'],
  ['UntrustedPrincipal', 24, '', 'The peer\'s principal is not trusted.'],
  ['Io', 25, '', 'An I/O error.'],
  ['Transport', 26, '', 'The transport failed.'],
];

/** C code (1..26) -> class. */
const BY_CODE = new Map();
/** Class name -> class, for the package's exports. */
const classes = { WeidaError };

for (const [name, errno, variant, doc] of KINDS) {
  // A named class expression per kind, so stacks and instanceof read naturally.
  const cls = { [name]: class extends WeidaError {} }[name];
  Object.defineProperties(cls, {
    errno: { value: errno },
    kind: { value: variant || name },
    description: { value: doc },
  });
  BY_CODE.set(errno, cls);
  classes[name] = cls;
}

/**
 * The Error for a failed call's code and the library's sentence; the
 * addon calls it for every failure, synchronous or not.
 * @param {number} errno
 * @param {string} message
 * @returns {WeidaError}
 */
function makeError(errno, message) {
  const cls = BY_CODE.get(errno) ?? classes.RuntimeFailure;
  return new cls(message, errno);
}

module.exports = { ...classes, makeError, BY_CODE };
