'use strict';
/**
 * Req/Rep, Push/Pull and Pub/Sub: one class per role. Waiting methods
 * return Promises (and take `{signal}` to abandon them); the rest return
 * at once.
 * @module weida/lib/patterns
 */
const native = require('./native');
const { Handle, waiting, incoming } = require('./handle');
const { FanOut } = require('./streams');
const { sendOrdering, openOrdering } = require('./cursors');
const { connectionStats } = require('./stats');

/** The asking side of Req/Rep: dials repliers, round-robin. */
class Requester extends Handle {
  /**
   * Dials `url` and adds it to the round-robin; resolves once negotiated.
   * A key the trust does not accept rejects with `Untrusted` naming it.
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.requesterConnect(this._h, url, this));
  }

  /**
   * One whole request and its whole reply (under `maxReplyBytes`, else
   * `LimitExceeded`).
   * @param {Uint8Array} payload
   * @param {number} maxReplyBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Buffer>}
   */
  request(payload, maxReplyBytes, options) {
    return waiting(options, () => native.requesterRequest(this._h, payload, maxReplyBytes, this));
  }

  /**
   * A streamed exchange: write the request to `stream`, finish it, then
   * `reply.recv()`.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{stream: import('./streams').OutgoingStream, reply: import('./streams').Reply}>}
   */
  open(options) {
    return waiting(options, () => native.requesterOpen(this._h, this));
  }

  /** Live connections. */
  peerCount() {
    return native.requesterPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.requesterConnectionStats(this._h));
  }
}

/**
 * One accepted request owing one answer; `payload` and `meta` were read on
 * accept and stay readable after answering. Closing it unanswered sends
 * NO_REPLY to the asker.
 */
class Request extends Handle {
  /** @internal */
  constructor(h, parent, payload, meta) {
    super(h, parent);
    /** @type {Buffer} the request, whole */
    this.payload = payload;
    /** @type {import('./values').IncomingMeta} what arrived with it */
    this.meta = meta;
  }

  /**
   * The whole reply, once; a second answer rejects with `NoReply`.
   * @param {Uint8Array} payload
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  reply(payload, options) {
    return waiting(options, () => native.requestReply(this._h, payload, this));
  }

  /**
   * Answers with a refusal: the asker sees `Rejected`.
   * @returns {Promise<void>}
   */
  async refuse() {
    native.requestRefuse(this._h);
  }
}

/** The answering side of Req/Rep, registered at a path. */
class Replier extends Handle {
  /** The registered path. */
  path() {
    return native.replierPath(this._h);
  }

  /**
   * The next request, its payload read whole under `maxBytes` (a larger one
   * is refused, the asker sees the refusal, and skipped).
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Request>}
   */
  accept(maxBytes, options) {
    return waiting(options, () => native.replierAccept(this._h, maxBytes, this));
  }

  /**
   * The requests, for `for await`, until this replier is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<Request, void, undefined>}
   */
  requests(maxBytes, options) {
    return incoming(this, () => this.accept(maxBytes, options));
  }
}

/** The sending side of Push/Pull. */
class Pusher extends Handle {
  /**
   * Dials `url`; resolves once negotiated.
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.pusherConnect(this._h, url, this));
  }

  /**
   * One whole message; resolves once it is written with its end (or kept in
   * the outbox while no connection is live). Not an application ack.
   * `options.report` (levels, e.g. `[PROCESSED]`) orders a report from the
   * puller with no exchange, in `options.mode` (PROGRESS by default); the
   * send then resolves to its `Cursors` (null for an empty order) and
   * bypasses the outbox, waiting for a live connection.
   * @param {Uint8Array} payload
   * @param {{signal?: AbortSignal, report?: Array<number | bigint>, mode?: number}} [options]
   * @returns {Promise<void | import('./cursors').Cursors | null>}
   */
  send(payload, options) {
    return sendOrdering(options, this, payload, native.pusherSend, native.pusherSendReporting);
  }

  /**
   * A streamed message: write it in pieces, then finish. `options.report`
   * and `options.mode` order a report as `send` does;
   * `OutgoingStream.cursors()` hands out its cursors.
   * @param {{signal?: AbortSignal, report?: Array<number | bigint>, mode?: number}} [options]
   * @returns {Promise<import('./streams').OutgoingStream>}
   */
  open(options) {
    return openOrdering(options, this, native.pusherOpen, native.pusherOpenReporting);
  }

  /** Live connections. */
  peerCount() {
    return native.pusherPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.pusherConnectionStats(this._h));
  }

  /** Outbox bodies dropped or lost before they could be written. */
  dropped() {
    return native.pusherDropped(this._h);
  }
}

/** The receiving side of Push/Pull, registered at a path. */
class Puller extends Handle {
  /** The registered path. */
  path() {
    return native.pullerPath(this._h);
  }

  /**
   * The next message, whole, under `maxBytes` (else `LimitExceeded`, and the
   * message is refused).
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta}>}
   */
  recv(maxBytes, options) {
    return waiting(options, () => native.pullerRecv(this._h, maxBytes, this));
  }

  /**
   * `recv` that also hands over the `Reporter` of the report the pusher
   * ordered (null when it ordered none): report through it once the message
   * is handled, then finish it.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta, reporter: import('./cursors').Reporter | null}>}
   */
  recvReporting(maxBytes, options) {
    return waiting(options, () => native.pullerRecvReporting(this._h, maxBytes, this));
  }

  /**
   * The next message unread, for payloads too large to hold.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{stream: import('./streams').IncomingStream, meta: import('./values').IncomingMeta}>}
   */
  recvStream(options) {
    return waiting(options, () => native.pullerRecvStream(this._h, this));
  }

  /**
   * The messages, for `for await`, until this puller is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<{payload: Buffer, meta: import('./values').IncomingMeta}, void, undefined>}
   */
  messages(maxBytes, options) {
    return incoming(this, () => this.recv(maxBytes, options));
  }
}

/** The publishing side of Pub/Sub. Nothing here waits for a subscriber. */
class Publisher extends Handle {
  /** The registered path. */
  path() {
    return native.publisherPath(this._h);
  }

  /**
   * Queues one copy per matching subscriber; returns how many (0 is normal).
   * Above the 8 MiB subscriber budget throws `LimitExceeded`.
   * @param {string} topic
   * @param {Uint8Array} payload
   * @returns {number}
   */
  publish(topic, payload) {
    return native.publisherPublish(this._h, topic, payload);
  }

  /**
   * A streamed publication to the subscribers matching now.
   * @param {string} topic
   * @returns {FanOut}
   */
  open(topic) {
    return new FanOut(native.publisherOpen(this._h, topic), this);
  }

  /** Connected subscribers. */
  subscriberCount() {
    return native.publisherSubscriberCount(this._h);
  }

  /** Distinct filters across subscribers. */
  filterCount() {
    return native.publisherFilterCount(this._h);
  }

  /** Copies dropped, every cause. */
  dropped() {
    return native.publisherDropped(this._h);
  }

  /**
   * One topic's drops by cause, or null when none was counted for it.
   * @param {string} topic
   * @returns {{total: number, subscriberBudget: number, subscriberQueue: number, noParkedConnection: number} | null}
   */
  droppedOn(topic) {
    const counts = native.publisherDroppedOn(this._h, topic);
    if (counts === null) return null;
    const [total, subscriberBudget, subscriberQueue, noParkedConnection] = counts;
    return { total, subscriberBudget, subscriberQueue, noParkedConnection };
  }
}

/**
 * The subscribing side of Pub/Sub: dials publishers, receives the copies
 * whose topic matches one of its filters.
 *
 * It is also a queue's consumer (`weida broker`): subscribe to the queue's
 * path, `grant` credit, receive with `recvReporting` and settle each
 * message by reporting `PROCESSED` at its length and finishing the
 * reporter. A message given back (`PROCESSED` below its length, then
 * `finish`), or held by a consumer that goes away, comes again with
 * `meta.deliveryAttempt` above 1: delivery is at least once.
 */
class Subscriber extends Handle {
  /**
   * Dials a publisher; resolves once negotiated.
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.subscriberConnect(this._h, url, this));
  }

  /**
   * Adds a filter (`""` and `"#"` take every topic); one the library
   * rejects is `Protocol`. The publisher applies it shortly after.
   * @param {string} filter
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  subscribe(filter, options) {
    return waiting(options, () => native.subscriberSubscribe(this._h, filter, this));
  }

  /**
   * Removes a filter.
   * @param {string} filter
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  unsubscribe(filter, options) {
    return waiting(options, () => native.subscriberUnsubscribe(this._h, filter, this));
  }

  /**
   * The next copy, whole, under `maxBytes`; `meta.topic` names its topic.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta}>}
   */
  recv(maxBytes, options) {
    return waiting(options, () => native.subscriberRecv(this._h, maxBytes, this));
  }

  /**
   * The next copy unread (a streamed fan-out).
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{stream: import('./streams').IncomingStream, meta: import('./values').IncomingMeta}>}
   */
  recvStream(options) {
    return waiting(options, () => native.subscriberRecvStream(this._h, this));
  }

  /**
   * Sets a queue's credit: `limit` is the total number of messages each
   * subscription (one per filter per connection) accepts since it was
   * made — absolute, not a delta, so a repeated grant changes nothing.
   * Credit starts at 0, so a queue delivers nothing before the first
   * grant; to take n more, grant what was received plus n. A grant not
   * above `granted()` is ignored (credit never drops). Later connections
   * get it too, but a redial makes new subscriptions that start over, so
   * up to `limit` may come again there. A publisher that is not a queue
   * ignores credit.
   * @param {number | bigint} limit a non-negative integer; a bigint above 2^64-1 is 2^64-1 (every message)
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  grant(limit, options) {
    return waiting(options, () => native.subscriberGrant(this._h, limit, this));
  }

  /**
   * The standing grant; 0 before the first (a Number: above 2^53 it is
   * approximate).
   * @returns {number}
   */
  granted() {
    return native.subscriberGranted(this._h);
  }

  /**
   * `recv` that also hands over the `Reporter` of the report the sender
   * ordered (null when it ordered none). A queue's delivery always orders
   * `PROCESSED`: report it at `payload.length` once the message is
   * handled, then `finish` — until then the queue holds it unsettled. To
   * give it back, report `PROCESSED` at 0 and finish. (A reporter closed
   * with nothing reported holds the message until the subscription or
   * connection ends.) A payload above `maxBytes` rejects with
   * `LimitExceeded` and is given back at once.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{payload: Buffer, meta: import('./values').IncomingMeta, reporter: import('./cursors').Reporter | null}>}
   */
  recvReporting(maxBytes, options) {
    return waiting(options, () => native.subscriberRecvReporting(this._h, maxBytes, this));
  }

  /**
   * The copies, for `for await`, until this subscriber is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<{payload: Buffer, meta: import('./values').IncomingMeta}, void, undefined>}
   */
  messages(maxBytes, options) {
    return incoming(this, () => this.recv(maxBytes, options));
  }

  /** Live publisher connections: the only sign a publisher is gone. */
  peerCount() {
    return native.subscriberPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.subscriberConnectionStats(this._h));
  }

  /** Filters held. */
  filterCount() {
    return native.subscriberFilterCount(this._h);
  }
}

module.exports = { Requester, Request, Replier, Pusher, Puller, Publisher, Subscriber };
