'use strict';
/**
 * A runtime's guarantee sets from `new Runtime({ ordering, dedupWindow,
 * acknowledgement, require })`, as the addon passes them to
 * weida_runtime_new. The options name levels; the library judges them and
 * its refusal names the dimension. This module refuses only what it cannot
 * express: an unknown name, a value of the wrong type, a `require` naming
 * a dimension the options left unset.
 * @module weida/lib/guarantees
 */

/** `ordering` values and their C levels (enum weida_ordering). */
const ORDERINGS = { none: 0, detect: 1, reassemble: 2 };
/** The dimensions `require` may name. */
const DIMENSIONS = ['ordering', 'deduplication', 'acknowledgement'];

/**
 * `[offered, required]`, each `[ordering, deduplication, dedupWindowMs,
 * acknowledgement]`, or `[null, null]` when nothing is asked (core).
 * @param {{ordering?: string, dedupWindow?: number, acknowledgement?: number, require?: Iterable<string>}} o
 */
function guaranteeSets(o) {
  const { ordering, dedupWindow, acknowledgement, require } = o;
  if (ordering === undefined && dedupWindow === undefined && acknowledgement === undefined && require === undefined) {
    return [null, null];
  }
  const offered = { ordering: 0, deduplication: 0, dedupWindowMs: 0, acknowledgement: 0 };
  const given = new Set();
  if (ordering !== undefined) {
    if (typeof ordering !== 'string') throw new TypeError(`ordering must be a string ('detect' or 'reassemble'), not ${typeof ordering}`);
    if (!Object.hasOwn(ORDERINGS, ordering)) throw new RangeError(`ordering: '${ordering}' is not one of 'none', 'detect', 'reassemble'`);
    offered.ordering = ORDERINGS[ordering];
    given.add('ordering');
  }
  if (dedupWindow !== undefined) {
    if (typeof dedupWindow !== 'number') throw new TypeError(`dedupWindow must be a number of seconds, not ${typeof dedupWindow}`);
    const ms = Math.round(dedupWindow * 1000);
    if (!Number.isFinite(dedupWindow) || ms < 1 || ms > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`dedupWindow must be a finite number of seconds, at least 0.001 (got ${dedupWindow})`);
    }
    offered.deduplication = 1;
    offered.dedupWindowMs = ms;
    given.add('deduplication');
  }
  if (acknowledgement !== undefined) {
    if (!Number.isInteger(acknowledgement)) throw new TypeError(`acknowledgement must be a level (an integer such as ACCEPTED), not ${typeof acknowledgement}`);
    if (acknowledgement < 0 || acknowledgement > 0x7fffffff) throw new RangeError(`acknowledgement: ${acknowledgement} is not a level`);
    offered.acknowledgement = acknowledgement;
    given.add('acknowledgement');
  }
  const required = { ...offered };
  const wanted = requiredDimensions(require, given);
  for (const dimension of DIMENSIONS) {
    if (wanted.has(dimension)) continue;
    required[dimension] = 0;
    if (dimension === 'deduplication') required.dedupWindowMs = 0;
  }
  return [flat(offered), flat(required)];
}

/** Every dimension given, or those `require` names. */
function requiredDimensions(require, given) {
  if (require === undefined) return given;
  if (typeof require === 'string' || require === null || typeof require[Symbol.iterator] !== 'function') {
    throw new TypeError("require must be an iterable of dimension names such as ['ordering']");
  }
  const names = new Set(require);
  for (const name of names) {
    if (!DIMENSIONS.includes(name)) throw new RangeError(`require: '${name}' is not a dimension (${DIMENSIONS.join(', ')})`);
    if (!given.has(name)) throw new RangeError(`require names ${name}, which no option sets (give ${name === 'deduplication' ? 'dedupWindow' : name})`);
  }
  return names;
}

function flat(g) {
  return [g.ordering, g.deduplication, g.dedupWindowMs, g.acknowledgement];
}

module.exports = { guaranteeSets, ORDERINGS, DIMENSIONS };
