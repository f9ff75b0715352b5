'use strict';
/**
 * Plain values: {@link Trust}, {@link Identity}, {@link IncomingMeta} and
 * {@link Survey}. They keep no runtime alive.
 * @module weida/lib/values
 */
const native = require('./native');
const { Handle } = require('./handle');

/** Which servers a dialling endpoint accepts. Built by factories only; there is no default. */
class Trust extends Handle {
  /** Trusts only the key a dialled address names (`weida://sha256:…@host/path`). */
  static byAddress() {
    return new Trust(native.trustByAddress());
  }

  /**
   * Trusts one key.
   * @param {string} fingerprint `"sha256:<64 hex>"` (else `InvalidFingerprint`)
   */
  static pin(fingerprint) {
    return new Trust(native.trustPin(fingerprint));
  }

  /**
   * Trusts certificates chaining to the PEM certificates in a file.
   * @param {string} path
   */
  static anchorFile(path) {
    return new Trust(native.trustAnchorFile(path));
  }

  /**
   * Trusts every key a file lists, one fingerprint a line (`#` starts a
   * comment): what `weida broker --trust-out` writes for a cluster, so a
   * redirect to any member is trusted.
   * @param {string} path
   */
  static pinFile(path) {
    return new Trust(native.trustPinFile(path));
  }
}

/**
 * A key and certificate a binding proves. `fromPemFile` reads its file
 * lazily: a missing or corrupt file fails at first use, naming it.
 */
class Identity extends Handle {
  /** @internal */
  constructor(h, path) {
    super(h);
    /** @internal */
    this._path = path;
  }

  /** A fresh in-memory key (its address changes on every restart). */
  static generate() {
    return new Identity(native.identityGenerate());
  }

  /**
   * A fresh key whose certificate names hosts.
   * @param {string[]} names DNS names or IP literals
   */
  static generateFor(names) {
    if (typeof names === 'string') {
      throw new TypeError('names must be an array of strings, not one string');
    }
    return new Identity(native.identityGenerateFor(Array.from(names)));
  }

  /**
   * A chain and key read from one PEM file, when first needed.
   * @param {string} path
   */
  static fromPemFile(path) {
    if (typeof path !== 'string') {
      throw new TypeError(`path must be a string, not ${typeof path}`);
    }
    return new Identity(0n, path);
  }

  /** @internal The handle, reading the PEM file on first use. */
  _handle() {
    if (!this._h && this._path !== undefined) {
      this._adopt(native.identityFromPemFile(this._path));
      this._path = undefined;
    }
    return this._h;
  }

  /** `"sha256:<64 hex>"` of the public key; reads the PEM file if needed. */
  fingerprint() {
    return native.identityFingerprint(this._handle());
  }
}

/**
 * What arrived with a message: 15 fields, each `null` when the sender (or,
 * for `peer`, the transport) said nothing — except `report` (`[]`) and
 * `deliveryAttempt` (1). `peer` is the key the transport proved or, over
 * a unix socket, the principal the kernel proved; never a header.
 */
class IncomingMeta {
  constructor() {
    /** @type {string | null} the path addressed; null on a reply half */
    this.endpoint = null;
    /** @type {number | null} the sender's advisory length */
    this.contentLen = null;
    /** @type {string | null} the sender's media-type label */
    this.contentType = null;
    /** @type {string | null} the topic of a fan-out copy */
    this.topic = null;
    /** @type {string | null} `sha256:…` the transport proved, `uid=… gid=… pid=…` over a unix socket; null for an anonymous or in-process peer */
    this.peer = null;
    /** @type {number | null} */
    this.sequence = null;
    /** @type {number | null} gap size */
    this.missed = null;
    /** @type {number[]} the levels of a report order (cursors) */
    this.report = [];
    /** @type {number | null} */
    this.reportMode = null;
    /** @type {number | null} */
    this.reportId = null;
    /** @type {string | null} W3C trace context */
    this.traceparent = null;
    /** @type {number | null} */
    this.segment = null;
    /** @type {number | null} */
    this.layer = null;
    /**
     * How many times a queue handed this message out, this one included;
     * 1 when unwritten (the first attempt). Above 1 it means only "this may
     * be a duplicate", never why earlier attempts did not settle.
     * @type {number}
     */
    this.deliveryAttempt = 1;
    /**
     * On a reply: the level the answering hop certifies for the request (a
     * queue's confirm: `ACCEPTED`, or `STORED` at its configured
     * durability); null claims nothing beyond the transport receipt.
     * @type {number | null}
     */
    this.achieved = null;
  }
}

/** What one survey collected. Silence is counted, not raised. */
class Survey {
  /** @internal */
  constructor(replies, asked, failed, late, silent) {
    /** @type {Buffer[]} the replies, in arrival order */
    this.replies = replies;
    /** @type {number} respondents the question was put to */
    this.asked = asked;
    /** @type {number} answered with an error (refusal, reset, loss, ceiling) */
    this.failed = failed;
    /** @type {number} replies that came after the deadline (not delivered) */
    this.late = late;
    /** @internal */
    this._silent = silent;
  }

  /** Respondents asked that answered neither way. */
  silent() {
    return this._silent;
  }
}

module.exports = { Trust, Identity, IncomingMeta, Survey };
