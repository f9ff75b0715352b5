'use strict';
/**
 * PAIR, SURVEY and BUS: one class per role.
 * @module weida/lib/peers
 */
const native = require('./native');
const { Handle, waiting, incoming } = require('./handle');
const { sendOrdering, openOrdering } = require('./cursors');
const { connectionStats } = require('./stats');

/**
 * One end of a PAIR: `Runtime.pair` dials, `Binding.pair` is bound. A
 * second peer's transfer is refused with `LimitExceeded`; the first peer is
 * kept.
 */
class Paired extends Handle {
  /**
   * Dials the bound end (dialling end only, once: a second call rejects
   * with `LimitExceeded`).
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.pairedConnect(this._h, url, this));
  }

  /**
   * One whole message to the peer. `options.report` orders a report from it
   * as `Pusher.send` does, resolving to its `Cursors`.
   * @param {Uint8Array} payload
   * @param {{signal?: AbortSignal, report?: Array<number | bigint>, mode?: number}} [options]
   * @returns {Promise<void | import('./cursors').Cursors | null>}
   */
  send(payload, options) {
    return sendOrdering(options, this, payload, native.pairedSend, native.pairedSendReporting);
  }

  /**
   * A streamed message to the peer; `options.report` orders a report as
   * `Pusher.open` does.
   * @param {{signal?: AbortSignal, report?: Array<number | bigint>, mode?: number}} [options]
   * @returns {Promise<import('./streams').OutgoingStream>}
   */
  open(options) {
    return openOrdering(options, this, native.pairedOpen, native.pairedOpenReporting);
  }

  /**
   * The next message, whole, under `maxBytes`.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta}>}
   */
  recv(maxBytes, options) {
    return waiting(options, () => native.pairedRecv(this._h, maxBytes, this));
  }

  /**
   * `recv` that also hands over the `Reporter` of the report the peer
   * ordered (null when it ordered none).
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta, reporter: import('./cursors').Reporter | null}>}
   */
  recvReporting(maxBytes, options) {
    return waiting(options, () => native.pairedRecvReporting(this._h, maxBytes, this));
  }

  /**
   * The next message unread.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{stream: import('./streams').IncomingStream, meta: import('./values').IncomingMeta}>}
   */
  recvStream(options) {
    return waiting(options, () => native.pairedRecvStream(this._h, this));
  }

  /**
   * The messages, for `for await`, until this end is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   */
  messages(maxBytes, options) {
    return incoming(this, () => this.recv(maxBytes, options));
  }

  /** The registered path (bound end) or the dialled one. */
  path() {
    return native.pairedPath(this._h);
  }

  /** 0 or 1. */
  peerCount() {
    return native.pairedPeerCount(this._h);
  }

  /**
   * The dialled URL's statistics (`[]` on a bound PAIR, which dials
   * nothing): `transport` is null over a local transport and while down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.pairedConnectionStats(this._h));
  }
}

/** The asking side of SURVEY: every survey asks every live respondent. */
class Surveyor extends Handle {
  /**
   * Adds a respondent (peers accumulate).
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.surveyorConnect(this._h, url, this));
  }

  /**
   * Asks every respondent and collects replies (each under `maxReplyBytes`)
   * until `deadlineSeconds`. Silence is counted in the result, not raised;
   * no respondent is an empty survey.
   * @param {Uint8Array} payload
   * @param {number} deadlineSeconds
   * @param {number} maxReplyBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./values').Survey>}
   */
  survey(payload, deadlineSeconds, maxReplyBytes, options) {
    return waiting(options, () => native.surveyorSurvey(this._h, payload, deadlineSeconds, maxReplyBytes, this));
  }

  /** Live respondents. */
  peerCount() {
    return native.surveyorPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.surveyorConnectionStats(this._h));
  }
}

/** The answering side of SURVEY, registered at a path. */
class Respondent extends Handle {
  /** The registered path. */
  path() {
    return native.respondentPath(this._h);
  }

  /**
   * The next question as a `Request` (the same class as Replier's).
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./patterns').Request>}
   */
  accept(maxBytes, options) {
    return waiting(options, () => native.respondentAccept(this._h, maxBytes, this));
  }

  /**
   * The questions, for `for await`, until this respondent is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   */
  requests(maxBytes, options) {
    return incoming(this, () => this.accept(maxBytes, options));
  }
}

/**
 * A BUS member: bound at a path and dialling other members at once. A send
 * reaches every live dialled member, never the sender.
 */
class BusMember extends Handle {
  /**
   * Dials another member; it receives this member's sends from now on.
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.busConnect(this._h, url, this));
  }

  /**
   * One copy to every live member; resolves to members reached. Never
   * waits for a member.
   * @param {Uint8Array} payload
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<number>}
   */
  send(payload, options) {
    return waiting(options, () => native.busSend(this._h, payload, this));
  }

  /**
   * The next message, whole, under `maxBytes`.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta}>}
   */
  recv(maxBytes, options) {
    return waiting(options, () => native.busRecv(this._h, maxBytes, this));
  }

  /**
   * The messages, for `for await`, until this member is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   */
  messages(maxBytes, options) {
    return incoming(this, () => this.recv(maxBytes, options));
  }

  /** Live connections. */
  peerCount() {
    return native.busPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.busConnectionStats(this._h));
  }

  /** Copies dropped. */
  dropped() {
    return native.busDropped(this._h);
  }

  /** The registered path. */
  path() {
    return native.busPath(this._h);
  }
}

module.exports = { Paired, Surveyor, Respondent, BusMember };
