/**
 * weida as an ES module: `import { Runtime, ACCEPTED } from 'weida'`.
 *
 * The package is one CommonJS implementation (index.js); this entry, the
 * "import" condition of package.json's "exports", re-exports every one of
 * its names, so `import weida from 'weida'` (the whole object) and the
 * named imports are the very values `require('weida')` gives, with one
 * addon loaded once. test/esm.test.mjs holds the two name lists equal.
 * @module weida
 */
import weida from '../index.js';

export default weida;
export const {
  version, VERSION, ALPN, TRANSPORT_RECEIPT, ACCEPTED, STORED, REPLICATED, PROCESSED,
  APPLICATION_FLOOR, PROGRESS, FINAL_ONLY, Runtime, Binding, Requester, Replier, Request, Pusher,
  Puller, Publisher, FanOut, Subscriber, Paired, Surveyor, Respondent, BusMember, OutgoingStream,
  IncomingStream, Reply, Cursors, Reporter, Radio, Segment, Dish, Trust, Identity, IncomingMeta,
  Survey, DishDrops, ConnectionStats, TransportStats, PathStats, UdpCounts, RemoteStats,
  WeidaError, RuntimeFailure, InvalidAddress, InvalidEndpointPath, InvalidFingerprint,
  AlreadyRegistered, AddressInUse, NotConnected, ConnectionLost, Negotiation, Protocol, Rejected,
  UnknownEndpoint, Unsupported, NoParkedConnection, NoReply, Canceled, Expired, Indeterminate,
  LimitExceeded, DatagramsUnavailable, TooLarge, Tls, Untrusted, UntrustedPrincipal, Io, Transport,
  onLog, diagnostics
} = weida;
