'use strict';
/**
 * The library's log lines, delivered to one user callback:
 * `weida.onLog((level, message, attrs) => ...)`.
 *
 * The library calls from its own threads; the addon queues each line on a
 * threadsafe function (at most 1024 waiting; past that lines are dropped
 * and counted) and this dispatcher runs the callback on the JS thread. A
 * callback that throws is reported once (a process warning with its
 * stack) and dropped; no exception reaches the library. Logging never
 * keeps the process alive.
 * @module weida/lib/logging
 */
const native = require('./native');

/** Library levels (log/slog's numbers) by name. */
const LEVELS = Object.freeze({ debug: -4, info: 0, warn: 4, error: 8 });

let current = null;

/** The name of a library level: levels between two names take the lower. */
function levelName(level) {
  if (level < LEVELS.info) return 'debug';
  if (level < LEVELS.warn) return 'info';
  if (level < LEVELS.error) return 'warn';
  return 'error';
}

/** 'k=v k2="a b"' as an object; quoted values are Go-quoted (JSON-like). */
function parseAttrs(text) {
  const attrs = {};
  const token = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    let value = m[2];
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value);
      } catch {
        value = value.slice(1, -1); // a Go escape JSON lacks (\x..): keep the text
      }
    }
    attrs[m[1]] = value;
  }
  return attrs;
}

function dispatch(level, message, attrsText) {
  const callback = current;
  if (callback === null) return; // removed: never called again
  try {
    callback(levelName(level), message, parseAttrs(attrsText));
  } catch (error) {
    if (current === callback) remove();
    process.emitWarning(
      `the weida.onLog callback threw and is dropped (weida.onLog installs another): ${error && error.stack ? error.stack : error}`,
      { type: 'WeidaLogWarning' },
    );
  }
}

function remove() {
  current = null;
  native.setLogCallback(LEVELS.info, null);
}

/**
 * Sets the one log callback, called with (level, message, attrs) for every
 * line at minLevel or above ('debug' | 'info' | 'warn' | 'error', default
 * 'info'); null removes it, after which it is never called again.
 * @param {((level: string, message: string, attrs: Record<string, string>) => void) | null} callback
 * @param {'debug' | 'info' | 'warn' | 'error'} [minLevel]
 */
function onLog(callback, minLevel = 'info') {
  if (callback !== null && typeof callback !== 'function') {
    throw new TypeError('onLog takes a function or null');
  }
  if (!Object.hasOwn(LEVELS, minLevel)) {
    throw new TypeError(`minLevel must be one of ${Object.keys(LEVELS).join(', ')}, not ${String(minLevel)}`);
  }
  if (callback === null) {
    remove();
    return;
  }
  current = callback;
  native.setLogCallback(LEVELS[minLevel], dispatch);
}

/** Lines dropped because the queue to the JS thread was full. */
function logLinesDropped() {
  return native.logLinesDropped();
}

module.exports = { onLog, logLinesDropped, parseAttrs };
