'use strict';
/**
 * What every object holding a library handle shares: closing, release on
 * garbage collection, and how a waiting call honours an AbortSignal.
 * @module weida/lib/handle
 */
const native = require('./native');

// A handle whose object was collected unclosed is released the same way
// close() would: the library's drop semantics apply (an unanswered request
// sends NO_REPLY, an unfinished stream is reset).
const finalizer = new FinalizationRegistry((h) => native.close(h));

/**
 * Holds one library handle (a BigInt; `0n` once closed). Closing follows
 * the library's drop semantics: an endpoint wakes its pending calls with
 * `Canceled`, an unanswered request sends NO_REPLY, an unfinished stream is
 * reset. Every object keeps its runtime alive; a stream, reply, request or
 * fan-out also keeps the object it came from.
 */
class Handle {
  /**
   * @param {bigint} h the library handle (internal)
   * @param {Handle} [parent] what this came from, kept alive with it
   */
  constructor(h, parent) {
    /** @internal */
    this._h = h;
    /** @internal */
    this._parent = parent;
    if (h) finalizer.register(this, h, this);
  }

  /** @internal Adopts a handle resolved after construction. */
  _adopt(h) {
    this._h = h;
    finalizer.register(this, h, this);
  }

  /** True once close() was called. */
  get closed() {
    return this._h === 0n;
  }

  /**
   * Releases the handle now (idempotent). Later calls on the object fail
   * with `RuntimeFailure` (`code` 100, `codeName` `'WEIDA_EBADHANDLE'`).
   */
  close() {
    const h = this._h;
    if (!h) return;
    this._h = 0n;
    finalizer.unregister(this);
    native.close(h);
  }
}

/** Closes any handle inside a value nobody will receive. */
function release(value) {
  if (value instanceof Handle) {
    value.close();
  } else if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) {
      if (inner instanceof Handle) inner.close();
    }
  }
}

function signalOf(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new TypeError(`options must be an object, not ${typeof options}`);
  }
  const { signal } = options;
  if (signal === undefined) return undefined;
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError('options.signal must be an AbortSignal');
  }
  return signal;
}

/**
 * Starts a waiting call and returns its Promise. With `options.signal`, an
 * abort cancels the library operation (its streams are reset, so the peer
 * learns) and rejects with `signal.reason`; a result that completed anyway
 * is closed, not leaked. An already aborted signal starts nothing.
 * @template T
 * @param {{signal?: AbortSignal} | undefined} options
 * @param {() => Promise<T>} start issues one native _async call
 * @returns {Promise<T>}
 */
function waiting(options, start) {
  if (options === undefined) return start();
  let signal;
  try {
    signal = signalOf(options);
  } catch (error) {
    return Promise.reject(error);
  }
  if (signal === undefined) return start();
  if (signal.aborted) return Promise.reject(signal.reason);
  const promise = start();
  const op = native.lastOp(); // 0n when the call did not start
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      native.opCancel(op); // stale once it finished: harmless
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) release(value);
        else resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error); // a no-op after an abort already rejected
      },
    );
  });
}

/**
 * The `for await` form of a receive: yields each result until the
 * endpoint is closed (which ends the loop quietly); any other failure, or
 * an abort, is thrown out of the loop.
 * @template T
 * @param {Handle} endpoint
 * @param {() => Promise<T>} receive
 * @returns {AsyncGenerator<T, void, undefined>}
 */
async function* incoming(endpoint, receive) {
  for (;;) {
    let value;
    try {
      value = await receive();
    } catch (error) {
      if (endpoint.closed) return;
      throw error;
    }
    yield value;
  }
}

/** Throws TypeError unless value is an instance of cls. */
function expect(value, cls, what) {
  if (!(value instanceof cls)) {
    const got = value === null ? 'null' : typeof value === 'object' ? value.constructor?.name : typeof value;
    throw new TypeError(`${what} must be a weida ${cls.name}, not ${got}`);
  }
  return value;
}

module.exports = { Handle, waiting, incoming, release, expect };
