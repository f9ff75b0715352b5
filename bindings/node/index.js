'use strict';
/**
 * weida: QUIC-native messaging for Node.
 *
 * A thin layer over the C library (the bundled `libweida.so`) through a
 * Node-API addon: it converts arguments, holds handles and shapes Promises;
 * the protocol lives in the library. Every waiting call returns a Promise
 * and takes `{signal}`: aborting cancels the library operation and resets
 * its streams, so the peer learns. Every receive takes a ceiling in bytes
 * with no default; payloads are Buffers or Uint8Arrays (a string is a
 * TypeError: no encoding is guessed). Open objects never keep the process
 * alive; pending calls do.
 * @module weida
 */
const native = require('./lib/native');
const { LEVELS, REPORT_MODES } = require('./lib/abi');
const errors = require('./lib/errors');
const { Trust, Identity, IncomingMeta, Survey } = require('./lib/values');
const { OutgoingStream, IncomingStream, Reply, FanOut } = require('./lib/streams');
const { Cursors, Reporter } = require('./lib/cursors');
const { Requester, Request, Replier, Pusher, Puller, Publisher, Subscriber } = require('./lib/patterns');
const { Paired, Surveyor, Respondent, BusMember } = require('./lib/peers');
const { Runtime, Binding } = require('./lib/runtime');
const { Radio, Segment, Dish, DishDrops } = require('./lib/radio');
const { ConnectionStats, TransportStats, PathStats, UdpCounts, RemoteStats } = require('./lib/stats');
const { onLog, logLinesDropped } = require('./lib/logging');
const { version } = require('./package.json');

// The addon builds these for completions and failures.
native.setup({
  makeError: errors.makeError,
  IncomingMeta,
  Request,
  OutgoingStream,
  IncomingStream,
  Reply,
  Survey,
  Cursors,
  Reporter,
});

const { makeError, BY_CODE, ...errorClasses } = errors;

/** Diagnostics for tests and leak checks (not part of the messaging API). */
const diagnostics = Object.freeze({
  /** Open library handles in the whole process (weida_handles_live). */
  handlesLive: () => native.handlesLive(),
  /** Calls of this thread whose completion has not been delivered yet. */
  pendingOperations: () => native.pendingCount(),
  /** The library's version string. */
  libraryVersion: () => native.version(),
  /** Log lines dropped because the queue to the JS thread was full. */
  logLinesDropped,
});

module.exports = {
  version,
  /** The wire protocol version. */
  VERSION: native.wireVersion(),
  /** The QUIC ALPN. */
  ALPN: Buffer.from(native.alpn()),
  // Completion levels of a report (plain numbers, the space is open above
  // APPLICATION_FLOOR) and report modes: weida.h's, from the generated table.
  ...LEVELS,
  ...REPORT_MODES,
  Runtime,
  Binding,
  Requester,
  Replier,
  Request,
  Pusher,
  Puller,
  Publisher,
  FanOut,
  Subscriber,
  Paired,
  Surveyor,
  Respondent,
  BusMember,
  OutgoingStream,
  IncomingStream,
  Reply,
  Cursors,
  Reporter,
  Radio,
  Segment,
  Dish,
  Trust,
  Identity,
  IncomingMeta,
  Survey,
  DishDrops,
  ConnectionStats,
  TransportStats,
  PathStats,
  UdpCounts,
  RemoteStats,
  ...errorClasses,
  onLog,
  diagnostics,
};
