'use strict';
/**
 * Streamed transfers: for payloads too large to hold, and exchanges whose
 * halves are written and read in pieces.
 * @module weida/lib/streams
 */
const native = require('./native');
const { Handle, waiting, incoming } = require('./handle');
const { Cursors, Reporter } = require('./cursors');

/**
 * An outgoing streamed transfer. Closing it unfinished resets it: the reader
 * sees `Canceled`, never a complete payload.
 */
class OutgoingStream extends Handle {
  /**
   * Writes payload bytes (waits for flow control).
   * @param {Uint8Array} chunk
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  write(chunk, options) {
    return waiting(options, () => native.ostreamWrite(this._h, chunk, this));
  }

  /**
   * Sends the end and waits for the transport receipt (the peer's QUIC stack
   * has every byte: not an application ack). A second finish, or a write
   * after it, rejects with `NoReply`.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<void>}
   */
  finish(options) {
    return waiting(options, () => native.ostreamFinish(this._h, this));
  }

  /**
   * Resets the stream: the reader sees `Canceled`.
   * @returns {Promise<void>}
   */
  async cancel() {
    native.ostreamCancel(this._h);
  }

  /**
   * The cursors of the report this stream ordered (`open({report})`), once;
   * null when it ordered none, and on every later call.
   * @returns {Promise<Cursors | null>}
   */
  async cursors() {
    const h = native.ostreamCursors(this._h);
    return h ? new Cursors(h) : null;
  }
}

/**
 * An incoming streamed transfer. Closing it before the end refuses the rest
 * (the sender sees `Rejected`).
 */
class IncomingStream extends Handle {
  /**
   * The next piece of at most `maxBytes` bytes; an empty Buffer at the end.
   * The ceiling bounds one piece, not the payload.
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Buffer>}
   */
  read(maxBytes, options) {
    return waiting(options, () => native.istreamRead(this._h, maxBytes, this));
  }

  /**
   * The rest of the payload, whole, under `maxBytes` (else `LimitExceeded`).
   * @param {number} maxBytes
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Buffer>}
   */
  collect(maxBytes, options) {
    return waiting(options, () => native.istreamCollect(this._h, maxBytes, this));
  }

  /**
   * The `Reporter` of the report the sender ordered, once; null when it
   * ordered none, and on every later call.
   * @returns {Promise<Reporter | null>}
   */
  async reporter() {
    const h = native.istreamReporter(this._h);
    return h ? new Reporter(h, this) : null;
  }

  /**
   * The pieces, for `for await`, until the end.
   * @param {number} maxBytes bounds each piece
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<Buffer, void, undefined>}
   */
  async *chunks(maxBytes, options) {
    for await (const piece of incoming(this, () => this.read(maxBytes, options))) {
      if (piece.length === 0) return;
      yield piece;
    }
  }
}

/** The reply half of an exchange opened with `Requester.open`. */
class Reply extends Handle {
  /**
   * Waits for the reply. The replier's refusal is its error; a connection
   * lost after the request's end is `Indeterminate`, never `ConnectionLost`.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{stream: IncomingStream, meta: import('./values').IncomingMeta}>}
   */
  recv(options) {
    return waiting(options, () => native.replyRecv(this._h, this));
  }
}

/**
 * One streamed publication to the subscribers that matched when it was
 * opened. Closing it unfinished cancels every copy.
 */
class FanOut extends Handle {
  /** @internal */
  constructor(h, publisher) {
    super(h, publisher);
    /** @type {string} the topic published */
    this.topic = native.fanoutTopic(h);
  }

  /**
   * Writes `chunk` to every remaining copy, waiting up to `seconds` for a
   * subscriber without room, which then loses its copy. Resolves to the
   * copies left. The budget bounds a chunk, not the payload.
   * @param {Uint8Array} chunk
   * @param {number} seconds
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<number>}
   */
  writeWithin(chunk, seconds, options) {
    return waiting(options, () => native.fanoutWriteWithin(this._h, chunk, seconds, this));
  }

  /**
   * Writes `chunk` without waiting: a subscriber without room now loses its
   * copy. Resolves to the copies left.
   * @param {Uint8Array} chunk
   * @returns {Promise<number>}
   */
  async writeNow(chunk) {
    return native.fanoutWriteNow(this._h, chunk);
  }

  /**
   * Copies still intact.
   * @returns {Promise<number>}
   */
  async subscribers() {
    return native.fanoutSubscribers(this._h);
  }

  /**
   * Ends every copy; resolves to how many subscribers got all of it. A
   * second finish rejects with `NoReply`.
   * @returns {Promise<number>}
   */
  async finish() {
    return native.fanoutFinish(this._h);
  }
}

module.exports = { OutgoingStream, IncomingStream, Reply, FanOut };
