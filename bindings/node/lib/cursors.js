'use strict';
/**
 * Completion reports ("cursors"). A sender orders a report with
 * `send(payload, { report: [PROCESSED] })`; the receiver answers through
 * its {@link Reporter} (`recvReporting`), and the sender's {@link Cursors}
 * show, per ordered level, the highest payload offset the receiver
 * reported. Nothing ever waits for a report, and a report is a request,
 * not a guarantee: a level nobody reports stays absent.
 * @module weida/lib/cursors
 */
const { REPORT_MODES: { PROGRESS } } = require('./abi');
const native = require('./native');
const { Handle, waiting } = require('./handle');

/**
 * The sender's view of the report it ordered on one transfer. The report
 * ends when the receiver finishes it, when its stream is reset or when the
 * connection ends; none of these is an error. Closing the cursors stops
 * watching (the receiver's report ends silently).
 */
class Cursors extends Handle {
  /**
   * `level -> offset` of every level reported so far, levels ascending.
   * @returns {Map<number, number>}
   */
  snapshot() {
    const [levels, offsets] = native.cursorsSnapshot(this._h);
    return new Map(levels.map((level, i) => [level, offsets[i]]));
  }

  /**
   * The highest offset reported for `level`; null when it was not ordered
   * or nobody reported it yet.
   * @param {number | bigint} level
   * @returns {number | null}
   */
  offset(level) {
    return native.cursorsOffset(this._h, level);
  }

  /**
   * Waits until the cursors moved and resolves to the new snapshot; null
   * once the report ended and every change was returned. A report nobody
   * answers may stay silent until the connection ends: bound the wait with
   * `{signal: AbortSignal.timeout(ms)}`, which leaves the report going.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Map<number, number> | null>}
   */
  async changed(options) {
    const moved = await waiting(options, () => native.cursorsChanged(this._h, this));
    return moved ? this.snapshot() : null;
  }

  /**
   * Every change, for `for await`, until the report ends.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<Map<number, number>, void, undefined>}
   */
  async *changes(options) {
    for (;;) {
      const snapshot = await this.changed(options);
      if (snapshot === null) return;
      yield snapshot;
    }
  }
}

/**
 * The receiving side of a report order (from `recvReporting` or
 * `IncomingStream.reporter()`). Records go out in the background, best
 * effort. Always finish a reporter (closing an unfinished one finishes it).
 */
class Reporter extends Handle {
  /** @internal */
  constructor(h, parent) {
    super(h, parent);
    /** @type {number[]} the levels the sender ordered, ascending */
    this.levels = native.reporterLevels(h);
    /** @type {number} PROGRESS or FINAL_ONLY, as the sender asked */
    this.mode = native.reporterMode(h);
  }

  /**
   * States that payload bytes `[0, offset)` reached `level` (an absolute
   * offset, never a delta). A level the sender did not order is ignored, not
   * refused; after `finish` rejects with `NoReply`.
   * @param {number | bigint} level
   * @param {number | bigint} offset
   * @returns {Promise<void>}
   */
  async report(level, offset) {
    native.reporterReport(this._h, level, offset);
  }

  /**
   * Ends the report: the latest offsets go out, then the end. Once; a
   * second call rejects with `NoReply`.
   * @returns {Promise<void>}
   */
  async finish() {
    native.reporterFinish(this._h);
  }
}

/**
 * A send that orders a report when `options.report` is given: resolves to
 * the Cursors (null for an empty order), else to undefined.
 */
function sendOrdering(options, endpoint, payload, plain, reporting) {
  const report = options?.report;
  if (report === undefined) return waiting(options, () => plain(endpoint._h, payload, endpoint));
  return waiting(options, () => reporting(endpoint._h, payload, report, options.mode ?? PROGRESS, endpoint));
}

/** An open that orders a report when `options.report` is given; see `OutgoingStream.cursors()`. */
function openOrdering(options, endpoint, plain, reporting) {
  const report = options?.report;
  if (report === undefined) return waiting(options, () => plain(endpoint._h, endpoint));
  return waiting(options, () => reporting(endpoint._h, report, options.mode ?? PROGRESS, endpoint));
}

module.exports = { Cursors, Reporter, sendOrdering, openOrdering };
