'use strict';
/**
 * RADIO/DISH: lossy fan-out of segments. A radio sends each segment to the
 * dishes whose filter matches its topic, losing rather than waiting:
 * opening a segment supersedes the older copies still in flight on its
 * topic, and a copy without room is lost and counted for that dish alone.
 * Nothing on a radio waits, so its methods return at once; the dish's
 * waiting methods return Promises (and take `{signal}`). Datagram segments
 * need `new Runtime({datagrams: true})` on both ends.
 * @module weida/lib/radio
 */
const native = require('./native');
const { Handle, waiting, incoming } = require('./handle');
const { connectionStats } = require('./stats');

/**
 * What one dish lost at a radio, by cause. Every count but `layersCut` is
 * a whole segment copy (or datagram segment) the dish never got;
 * `layersCut` counts copies that lost layers above 0 but kept layer 0.
 * `noParked` is for unix dishes only: their datagrams travel on a reverse
 * connection the dish parks, so over QUIC it stays 0.
 */
class DishDrops {
  /** @param {object} counts (internal) */
  constructor(counts) {
    /** @type {string | null} `sha256:…` the dish proved, or null (anonymous) */
    this.peer = counts.peer;
    /** @type {string} its UDP address, telling anonymous dishes apart */
    this.addr = counts.addr;
    /** @type {number} no room in the dish's byte budget */
    this.subscriberBudget = counts.subscriberBudget;
    /** @type {number} a layer's queue of chunks was full */
    this.subscriberQueue = counts.subscriberQueue;
    /** @type {number} reset because a newer segment on the topic opened */
    this.superseded = counts.superseded;
    /** @type {number} older than the smaller maxAge */
    this.expired = counts.expired;
    /** @type {number} a datagram larger than the dish's datagram size */
    this.tooLarge = counts.tooLarge;
    /** @type {number} a datagram for a dish without datagram flows */
    this.noDatagrams = counts.noDatagrams;
    /** @type {number} a datagram for a unix dish with no reverse connection parked */
    this.noParked = counts.noParked;
    /** @type {number} copies that lost upper layers under pressure */
    this.layersCut = counts.layersCut;
    Object.freeze(this);
  }
}

/**
 * One segment being written (from `Radio.segment`) to the dishes that
 * matched its topic when it opened: `write` or `writeLayer` its chunks,
 * then `finish`. Nothing waits for a dish. Closing it unfinished cancels
 * it: every copy is reset, so no dish waits for the rest and none takes the
 * half-written unit for a whole one.
 */
class Segment extends Handle {
  /**
   * Writes `chunk` to layer 0; returns how many copies took it.
   * @param {Uint8Array} chunk
   * @returns {number}
   */
  write(chunk) {
    return native.segmentWrite(this._h, 0, chunk);
  }

  /**
   * Writes `chunk` to `layer` (0..15, else `LimitExceeded`). A copy without
   * room gives up its upper layers first; losing layer 0 loses the segment
   * for that dish. A layer above a dish's cap is never sent to it.
   * @param {number} layer
   * @param {Uint8Array} chunk
   * @returns {number} copies that took it
   */
  writeLayer(layer, chunk) {
    return native.segmentWrite(this._h, layer, chunk);
  }

  /**
   * Ends one layer on every copy.
   * @param {number} layer
   */
  finishLayer(layer) {
    native.segmentFinishLayer(this._h, layer);
  }

  /**
   * Ends every layer; returns how many copies are not lost. A second finish
   * throws `NoReply`.
   * @returns {number}
   */
  finish() {
    return native.segmentFinish(this._h);
  }

  /** The segment's number on its topic (from 0). */
  number() {
    return native.segmentNumber(this._h);
  }
}

/**
 * The bound side of RADIO/DISH (from `Binding.radio`). Nothing here waits
 * for a dish.
 */
class Radio extends Handle {
  /**
   * Opens the next segment on `topic`, superseding the older copies still
   * in flight there.
   * @param {string} topic
   * @param {{maxAge?: number, priority?: number, followsUpstream?: boolean}} [options]
   *   `maxAge` (seconds) expires every copy that long after it opened;
   *   `priority` (-32768..32767) nudges its urgency against other segments;
   *   `followsUpstream` keeps its copies alive when a successor opens.
   * @returns {Segment}
   */
  segment(topic, options = {}) {
    const { maxAge = null, priority = 0, followsUpstream = false } = options;
    return new Segment(native.radioSegment(this._h, topic, maxAge, priority, Boolean(followsUpstream)), this);
  }

  /**
   * Sends `payload` as a one-packet segment to every matching dish; returns
   * how many took it. Never turned into a stream: a dish without datagrams,
   * or whose datagram size it exceeds, loses it (counted in `dishDrops`).
   * @param {string} topic
   * @param {Uint8Array} payload
   * @returns {number}
   */
  datagram(topic, payload) {
    return native.radioDatagram(this._h, topic, payload);
  }

  /** Dish connections holding a join here. */
  dishCount() {
    return native.radioDishCount(this._h);
  }

  /** Whole segments lost over every dish (layers cut are not counted). */
  dropped() {
    return native.radioDropped(this._h);
  }

  /**
   * Each connected dish's losses by cause.
   * @returns {DishDrops[]}
   */
  dishDrops() {
    return native.radioDishDrops(this._h).map((counts) => new DishDrops(counts));
  }

  /** The registered path. */
  path() {
    return native.radioPath(this._h);
  }
}

/**
 * The dialling side of RADIO/DISH (from `Runtime.dish`): connects to
 * radios, joins topics with its terms, and receives segments and datagram
 * segments from all of them. Nothing is kept for it: a late joiner gets the
 * next segment, and a lost one is a gap in the numbers it sees.
 */
class Dish extends Handle {
  /**
   * Dials a radio and sends it every join held so far.
   * @param {string} url
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  connect(url, options) {
    return waiting(options, () => native.dishConnect(this._h, url, this));
  }

  /**
   * Joins `filter` on every connection, now and after redials; it matches
   * topics as a subscriber's filter does (`"cam.#"` takes `"cam"` and
   * `"cam.front"`, `""` every topic). Joining again updates the terms. The
   * radio applies the join shortly after this resolves.
   * @param {string} filter
   * @param {{maxAge?: number, maxLayer?: number, signal?: AbortSignal}} [options]
   *   `maxAge` (seconds) is the latency budget: older copies are dropped on
   *   the way; `maxLayer` caps the layers sent (above 15: `LimitExceeded`).
   * @returns {Promise<void>}
   */
  join(filter, options = {}) {
    const { maxAge = null, maxLayer = null } = options ?? {};
    return waiting(options, () => native.dishJoin(this._h, filter, maxAge, maxLayer, this));
  }

  /**
   * Drops `filter`; an unknown one is not an error.
   * @param {string} filter
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  leave(filter, options) {
    return waiting(options, () => native.dishLeave(this._h, filter, this));
  }

  /**
   * The next segment, `{kind: 'segment', payload, meta}` (`meta.topic`,
   * `meta.segment` and `meta.layer` say which), or datagram segment,
   * `{kind: 'datagram', topic, segment, payload}`. One above `maxBytes` is
   * discarded with `LimitExceeded`, and the dish goes on.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<DishMessage>}
   */
  async recv(maxBytes, options) {
    const { kind, payload, meta } = await waiting(options, () => native.dishRecv(this._h, maxBytes, this));
    if (kind === 'datagram') return { kind, topic: meta.topic, segment: meta.segment, payload };
    return { kind, payload, meta };
  }

  /**
   * The messages, for `for await`, until this dish is closed.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<DishMessage, void, undefined>}
   */
  messages(maxBytes, options) {
    return incoming(this, () => this.recv(maxBytes, options));
  }

  /** Live radio connections. */
  peerCount() {
    return native.dishPeerCount(this._h);
  }

  /**
   * Each connected URL's statistics, in connect order: `transport` is null
   * over a local transport and while a URL is down.
   * @returns {ConnectionStats[]}
   */
  connectionStats() {
    return connectionStats(native.dishConnectionStats(this._h));
  }
}

/**
 * @typedef {{kind: 'segment', payload: Buffer, meta: import('./values').IncomingMeta}
 *   | {kind: 'datagram', topic: string, segment: number, payload: Buffer}} DishMessage
 */

module.exports = { Radio, Segment, Dish, DishDrops };
