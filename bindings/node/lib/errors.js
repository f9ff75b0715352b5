'use strict';
/**
 * The error classes: one Error subclass per library error kind, in the
 * order of weida.h's codes 1..26, under the common base {@link WeidaError}.
 * The ABI's own failures (a bad or closed handle, a bad argument, an
 * internal fault, an unexpected code) are {@link RuntimeFailure}, whose
 * `code` is then the ABI code (100..105).
 * @module weida/lib/errors
 */
const { KINDS } = require('./abi');
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

// Each kind's doc, by class name; the kinds themselves (class name, C code,
// library variant, in weida.h's order) are the generated table's.
const DOCS = {
  RuntimeFailure: 'The runtime failed or was used wrongly (the library\'s Runtime error).',
  InvalidAddress: 'An address or URL is not valid.',
  InvalidEndpointPath: 'An endpoint path is not valid.',
  InvalidFingerprint: 'A fingerprint is not sha256:<64 hex>.',
  AlreadyRegistered: 'The path already has an endpoint.',
  AddressInUse: 'The local address is in use.',
  NotConnected: 'The endpoint has no connection.',
  ConnectionLost: 'The connection was lost before the outcome was settled: a definite failure.',
  Negotiation: 'The peers could not agree on terms.',
  Protocol: 'A protocol rule was broken, or a reserved value was named.',
  Rejected: 'The peer refused it.',
  UnknownEndpoint: 'No endpoint is registered at that path.',
  Unsupported: 'The endpoint or the library does not support it.',
  NoParkedConnection: 'No parked reverse connection.',
  NoReply: 'No reply: unanswered, or a handle already spent (second reply or finish).',
  Canceled: 'Canceled: the endpoint was closed or the transfer reset.',
  Expired: 'The send timeout expired.',
  Indeterminate: 'The outcome is unknown: a sibling of ConnectionLost, never a subclass.',
  LimitExceeded: 'A limit or receive ceiling was exceeded; the payload was refused.',
  DatagramsUnavailable: 'Datagrams are not available on this connection.',
  TooLarge: 'Too large for a datagram.',
  Tls: 'TLS failed.',
  Untrusted: 'The peer\'s key is not trusted; the message names the key that answered.',
  UntrustedPrincipal: 'The peer\'s principal is not trusted.',
  Io: 'An I/O error.',
  Transport: 'The transport failed.',
};

/** C code (1..26) -> class. */
const BY_CODE = new Map();
/** Class name -> class, for the package's exports. */
const classes = { WeidaError };

for (const [name, errno, variant] of KINDS) {
  // A kind the header added without a class here fails the load, naming it.
  if (!(name in DOCS)) throw new Error(`weida: lib/errors.js has no class for weida.h's kind ${name}`);
  // A named class expression per kind, so stacks and instanceof read naturally.
  const cls = { [name]: class extends WeidaError {} }[name];
  Object.defineProperties(cls, {
    errno: { value: errno },
    kind: { value: variant },
    description: { value: DOCS[name] },
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
