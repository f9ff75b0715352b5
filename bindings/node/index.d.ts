// Type declarations for weida (Node). The runtime JSDoc lives in lib/*.js;
// these give checkers and editors the exact shapes.
//
// Every waiting call returns a Promise and takes an optional `{ signal }`:
// aborting cancels the library operation (its streams are reset, so the
// peer learns) and rejects with `signal.reason`.

/// <reference types="node" />

/** Bytes accepted where a payload is required (a string is a TypeError). */
export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;

/** Options of every waiting call. */
export interface CallOptions {
  /** Abandons the call: the operation is canceled and its streams reset. */
  signal?: AbortSignal;
}

/** A completion level: 1..5 are the library's, 16 and above the application's. */
export type Level = number | bigint;

/** Options of a send or open that may order a completion report. */
export interface OrderOptions extends CallOptions {
  /** The levels to report (at most 16 distinct); a reserved level is Protocol. */
  report?: Level[];
  /** PROGRESS (the default) or FINAL_ONLY. */
  mode?: number;
}

/** The package version. */
export const version: string;
/** The wire protocol version (0). */
export const VERSION: number;
/** The QUIC ALPN. */
export const ALPN: Buffer;
/** Completion level: the peer's transport holds the bytes. */
export const TRANSPORT_RECEIPT: 1;
/** Completion level: the peer's application took the message. */
export const ACCEPTED: 2;
/** Completion level: persisted. */
export const STORED: 3;
/** Completion level: persisted on more than one node. */
export const REPLICATED: 4;
/** Completion level: acted upon. */
export const PROCESSED: 5;
/** The first level an application may name; carried, never interpreted. */
export const APPLICATION_FLOOR: 16;
/** Report mode: records as levels advance (the default). */
export const PROGRESS: 0;
/** Report mode: one record per level at the end. */
export const FINAL_ONLY: 1;

/** Holds one library handle; closing follows the library's drop semantics. */
declare abstract class Handle {
  /** True once close() was called. */
  readonly closed: boolean;
  /** Releases the handle now (idempotent). Later calls fail with RuntimeFailure. */
  close(): void;
}

/** Which servers a dialling endpoint accepts. No default. */
export class Trust extends Handle {
  private constructor();
  /** Trusts only the key a dialled address names. */
  static byAddress(): Trust;
  /** Trusts one key, `"sha256:<64 hex>"` (else InvalidFingerprint). */
  static pin(fingerprint: string): Trust;
  /** Trusts certificates chaining to the PEM certificates in path. */
  static anchorFile(path: string): Trust;
  /** Trusts every key a file lists (what `weida broker --trust-out` writes). */
  static pinFile(path: string): Trust;
}

/** A key and certificate a binding proves. */
export class Identity extends Handle {
  private constructor();
  /** A fresh in-memory key (its address changes on every restart). */
  static generate(): Identity;
  /** A fresh key whose certificate names hosts (DNS names or IP literals). */
  static generateFor(names: readonly string[]): Identity;
  /** A chain and key read from one PEM file, when first needed. */
  static fromPemFile(path: string): Identity;
  /** `"sha256:<64 hex>"` of the public key. */
  fingerprint(): string;
}

/** What arrived with a message; each field null when nothing was said. */
export class IncomingMeta {
  /** The path addressed; null on a reply half. */
  endpoint: string | null;
  /** The sender's advisory length. */
  contentLen: number | null;
  /** The sender's media-type label. */
  contentType: string | null;
  /** The topic of a fan-out copy. */
  topic: string | null;
  /** `sha256:…` the transport proved, or `uid=… gid=… pid=…` the kernel proved over a unix socket; never a header; null for anonymous and in-process peers. */
  peer: string | null;
  sequence: number | null;
  /** Gap size. */
  missed: number | null;
  /** The levels of a report order. */
  report: number[];
  reportMode: number | null;
  reportId: number | null;
  /** W3C trace context. */
  traceparent: string | null;
  segment: number | null;
  layer: number | null;
  /** How many times a queue handed this message out, this one included; 1 when unwritten. Above 1: maybe a duplicate. */
  deliveryAttempt: number;
  /** On a reply: the level the answering hop certifies (a queue's confirm: ACCEPTED); null claims nothing. */
  achieved: number | null;
}

/** A whole received message. */
export interface Message {
  payload: Buffer;
  meta: IncomingMeta;
}

/** A whole received message and the reporter of the report its sender ordered. */
export interface ReportingMessage extends Message {
  /** null when the sender ordered no report. */
  reporter: Reporter | null;
}

/** An incoming stream and what arrived with it. */
export interface IncomingTransfer {
  stream: IncomingStream;
  meta: IncomingMeta;
}

/** What one survey collected. Silence is counted, not raised. */
export class Survey {
  private constructor();
  /** The replies, in arrival order. */
  readonly replies: Buffer[];
  /** Respondents the question was put to. */
  readonly asked: number;
  /** Answered with an error (refusal, reset, loss, ceiling). */
  readonly failed: number;
  /** Replies that came after the deadline (not delivered). */
  readonly late: number;
  /** Respondents asked that answered neither way. */
  silent(): number;
}

/** Options of the Runtime constructor. */
export interface RuntimeOptions {
  /** Accepted for parity (Go schedules itself); at least 1. */
  workerThreads?: number;
  /** Datagram flows with a 64 KiB receive budget; both ends need them (Radio.datagram). */
  datagrams?: boolean;
  /** Exchange path reports over QUIC (both ends need it): ConnectionStats.remote. */
  pathReport?: boolean;
  /**
   * Push/Pull keeps no order unless asked: 'reassemble' releases each
   * producer's messages in order (holding at most 256 early arrivals per
   * connection), 'detect' reports gaps as meta.missed.
   */
  ordering?: 'none' | 'detect' | 'reassemble';
  /** Seconds within which a repeated message is discarded (suppressedDuplicates()). */
  dedupWindow?: number;
  /** The completion level required of the peer, e.g. ACCEPTED of a broker. */
  acknowledgement?: number;
  /**
   * The dimensions required of every peer; default: every one set above
   * (a peer that does not offer it fails connect with Negotiation naming
   * it). [] offers without requiring.
   */
  require?: Iterable<'ordering' | 'deduplication' | 'acknowledgement'>;
}

/** A runtime: owns connections. Open objects never keep the process alive. */
export class Runtime extends Handle {
  constructor(options?: RuntimeOptions);
  /** Binds a QUIC socket at "host:port" (port 0: the kernel chooses). */
  bind(addr: string, identity: Identity): Promise<Binding>;
  /** Serves this runtime's paths on the in-process bus `bus` (dialled as weida+inproc://bus/path). */
  bindInproc(bus: string): Binding;
  /** Serves this runtime's paths on the unix socket at path (dialled as weida+unix://…); an addition to SURFACE.md. */
  bindUnix(path: string): Binding;
  /** One-way transfers discarded as repeats within dedupWindow (0 unless deduplication was agreed). */
  suppressedDuplicates(): number;
  requester(trust: Trust, options?: DiallerOptions): Requester;
  pusher(trust: Trust, options?: DiallerOptions): Pusher;
  subscriber(trust: Trust, options?: DiallerOptions): Subscriber;
  pair(trust: Trust, options?: DiallerOptions): Paired;
  surveyor(trust: Trust, options?: DiallerOptions): Surveyor;
  /** A RADIO/DISH receiver that verifies radios under trust. */
  dish(trust: Trust, options?: DiallerOptions): Dish;
  /** Waits up to seconds for receipts and consumption, then ends the runtime. */
  drain(seconds: number, options?: CallOptions): Promise<{ delivered: number; outstanding: number }>;
}

/** One QUIC socket, in-process bus or unix socket serving its runtime's paths. */
export class Binding extends Handle {
  private constructor();
  /** The bound "ip:port", with the real port; the bus name (inproc) or socket path (unix). */
  localAddr(): string;
  /** `"sha256:…"` of the key this binding proves; null for an in-process or unix binding. */
  fingerprint(): string | null;
  /** The dialling URL of path: a client's whole configuration. */
  url(path: string): string;
  replier(path: string): Replier;
  puller(path: string): Puller;
  publisher(path: string): Publisher;
  pair(path: string): Paired;
  respondent(path: string): Respondent;
  /** The RADIO endpoint at path: lossy fan-out of segments to dishes. */
  radio(path: string): Radio;
  bus(path: string, trust: Trust): BusMember;
}

/** The asking side of Req/Rep: dials repliers, round-robin. */
export class Requester extends Handle {
  private constructor();
  /** Dials url; resolves once negotiated (Untrusted names a wrong key). */
  connect(url: string, options?: CallOptions): Promise<void>;
  /** One whole request and its whole reply (under maxReplyBytes). */
  request(payload: Bytes, maxReplyBytes: number | bigint, options?: CallOptions): Promise<Buffer>;
  /** A streamed exchange: write and finish stream, then reply.recv(). */
  open(options?: CallOptions): Promise<{ stream: OutgoingStream; reply: Reply }>;
  /** Live connections. */
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
}

/** One accepted request owing one answer. Closing it unanswered sends NO_REPLY. */
export class Request extends Handle {
  private constructor();
  /** The request, whole. */
  readonly payload: Buffer;
  /** What arrived with it. */
  readonly meta: IncomingMeta;
  /** The whole reply, once; a second answer rejects with NoReply. */
  reply(payload: Bytes, options?: CallOptions): Promise<void>;
  /** Answers with a refusal: the asker sees Rejected. */
  refuse(): Promise<void>;
}

/** The answering side of Req/Rep. */
export class Replier extends Handle {
  private constructor();
  path(): string;
  /** The next request, read whole under maxBytes. */
  accept(maxBytes: number | bigint, options?: CallOptions): Promise<Request>;
  /** The requests, for `for await`, until this replier is closed. */
  requests(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Request, void, undefined>;
}

/** The sending side of Push/Pull. */
export class Pusher extends Handle {
  private constructor();
  connect(url: string, options?: CallOptions): Promise<void>;
  /** Resolves once written with its end (or kept in the outbox); not an application ack. */
  send(payload: Bytes, options?: CallOptions): Promise<void>;
  /** With a report order: resolves to its Cursors (null for an empty order); bypasses the outbox. */
  send(payload: Bytes, options: OrderOptions & { report: Level[] }): Promise<Cursors | null>;
  /** A streamed message; a report order's cursors come from OutgoingStream.cursors(). */
  open(options?: OrderOptions): Promise<OutgoingStream>;
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
  /** Outbox bodies dropped or lost before they could be written. */
  dropped(): number;
}

/** The receiving side of Push/Pull. */
export class Puller extends Handle {
  private constructor();
  path(): string;
  /** The next message, whole, under maxBytes (else LimitExceeded). */
  recv(maxBytes: number | bigint, options?: CallOptions): Promise<Message>;
  /** recv, with the Reporter of the report the pusher ordered (or null). */
  recvReporting(maxBytes: number | bigint, options?: CallOptions): Promise<ReportingMessage>;
  /** The next message unread. */
  recvStream(options?: CallOptions): Promise<IncomingTransfer>;
  /** The messages, for `for await`, until this puller is closed. */
  messages(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Message, void, undefined>;
}

/** Drops of one topic by cause. */
export interface DropCounts {
  total: number;
  subscriberBudget: number;
  subscriberQueue: number;
  noParkedConnection: number;
}

/** The publishing side of Pub/Sub. Nothing here waits for a subscriber. */
export class Publisher extends Handle {
  private constructor();
  path(): string;
  /** Queues one copy per matching subscriber; returns how many (0 is normal). */
  publish(topic: string, payload: Bytes): number;
  /** A streamed publication to the subscribers matching now. */
  open(topic: string): FanOut;
  subscriberCount(): number;
  filterCount(): number;
  dropped(): number;
  droppedOn(topic: string): DropCounts | null;
}

/**
 * The subscribing side of Pub/Sub, and a queue's consumer: grant credit,
 * recvReporting, report PROCESSED at the payload's length and finish.
 */
export class Subscriber extends Handle {
  private constructor();
  connect(url: string, options?: CallOptions): Promise<void>;
  /** Adds a filter ("" and "#" take every topic); a rejected one is Protocol. */
  subscribe(filter: string, options?: CallOptions): Promise<void>;
  unsubscribe(filter: string, options?: CallOptions): Promise<void>;
  recv(maxBytes: number | bigint, options?: CallOptions): Promise<Message>;
  recvStream(options?: CallOptions): Promise<IncomingTransfer>;
  messages(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Message, void, undefined>;
  /**
   * A queue's credit: the total messages each subscription accepts since it was made (absolute,
   * never lowered; a grant not above granted() is ignored). Credit starts at 0.
   */
  grant(limit: number | bigint, options?: CallOptions): Promise<void>;
  /** The standing grant; 0 before the first. */
  granted(): number;
  /**
   * recv with the Reporter of the report the sender ordered (null for none). A queue holds its
   * delivery until PROCESSED is reported at the payload's length and the reporter finished;
   * PROCESSED at 0, then finish, gives it back.
   */
  recvReporting(maxBytes: number | bigint, options?: CallOptions): Promise<ReportingMessage>;
  /** Live publisher connections: the only sign a publisher is gone. */
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
  filterCount(): number;
}

/** One end of a PAIR. */
export class Paired extends Handle {
  private constructor();
  /** Dialling end only, once (a second call rejects with LimitExceeded). */
  connect(url: string, options?: CallOptions): Promise<void>;
  send(payload: Bytes, options?: CallOptions): Promise<void>;
  /** With a report order: resolves to its Cursors (null for an empty order). */
  send(payload: Bytes, options: OrderOptions & { report: Level[] }): Promise<Cursors | null>;
  open(options?: OrderOptions): Promise<OutgoingStream>;
  recv(maxBytes: number | bigint, options?: CallOptions): Promise<Message>;
  /** recv, with the Reporter of the report the peer ordered (or null). */
  recvReporting(maxBytes: number | bigint, options?: CallOptions): Promise<ReportingMessage>;
  recvStream(options?: CallOptions): Promise<IncomingTransfer>;
  messages(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Message, void, undefined>;
  path(): string;
  /** 0 or 1. */
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
}

/** The asking side of SURVEY. */
export class Surveyor extends Handle {
  private constructor();
  connect(url: string, options?: CallOptions): Promise<void>;
  /** Asks every respondent, collects replies until deadlineSeconds. */
  survey(payload: Bytes, deadlineSeconds: number, maxReplyBytes: number | bigint, options?: CallOptions): Promise<Survey>;
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
}

/** The answering side of SURVEY. */
export class Respondent extends Handle {
  private constructor();
  path(): string;
  accept(maxBytes: number | bigint, options?: CallOptions): Promise<Request>;
  requests(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Request, void, undefined>;
}

/** A BUS member: bound and dialling at once; a send never reaches the sender. */
export class BusMember extends Handle {
  private constructor();
  connect(url: string, options?: CallOptions): Promise<void>;
  /** Resolves to members reached. */
  send(payload: Bytes, options?: CallOptions): Promise<number>;
  recv(maxBytes: number | bigint, options?: CallOptions): Promise<Message>;
  messages(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Message, void, undefined>;
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
  dropped(): number;
  path(): string;
}

/** A segment's terms (Radio.segment). */
export interface SegmentOptions {
  /** Seconds after opening at which every copy expires; null: none. */
  maxAge?: number | null;
  /** -32768..32767: urgency against other segments (default 0). */
  priority?: number;
  /** Keep this segment's copies alive when a successor opens on the topic. */
  followsUpstream?: boolean;
}

/** A dish's terms for one filter (Dish.join). */
export interface JoinOptions extends CallOptions {
  /** Latency budget in seconds: older copies are dropped on the way; null: none. */
  maxAge?: number | null;
  /** Highest layer wanted, 0..15 (above: LimitExceeded); null: every layer. */
  maxLayer?: number | null;
}

/** What Dish.recv resolves to: a segment (or one layer of one), or a datagram segment. */
export type DishMessage =
  | { kind: 'segment'; payload: Buffer; meta: IncomingMeta }
  | { kind: 'datagram'; topic: string; segment: number; payload: Buffer };

/** quic-go's view of the network path; times in seconds. */
export class PathStats {
  private constructor();
  /** Smoothed round-trip time. */
  readonly rtt: number;
  readonly minRtt: number;
  readonly latestRtt: number;
  /** Mean deviation of the RTT. */
  readonly rttVariation: number;
  /** Bytes, QUIC packet overhead included. */
  readonly congestionWindow: number;
  /** May fall: a packet declared lost can still arrive. */
  readonly lostPackets: number;
  readonly lostBytes: number;
  /** quic-go does not expose the path MTU: always null in this build. */
  readonly currentMtu: null;
}

/** Traffic one way: QUIC packets (not UDP datagrams) and their bytes, retransmissions included. */
export class UdpCounts {
  private constructor();
  readonly packets: number;
  readonly bytes: number;
}

/** What a QUIC connection's stack measures. */
export class TransportStats {
  private constructor();
  readonly path: PathStats;
  /** Sent. */
  readonly tx: UdpCounts;
  /** Received. */
  readonly rx: UdpCounts;
}

/**
 * The peer's own path report (PROTOCOL.md §8.9), its newest record (one
 * every 2 s); a figure the peer did not state is null. Times in seconds.
 */
export class RemoteStats {
  private constructor();
  readonly rtt: number | null;
  readonly minRtt: number | null;
  /** Bytes. */
  readonly congestionWindow: number | null;
  readonly congestionEvents: number | null;
  readonly lostPackets: number | null;
  readonly lostBytes: number | null;
  readonly sentPackets: number | null;
  readonly currentMtu: number | null;
  readonly txDatagrams: number | null;
  readonly txBytes: number | null;
  readonly rxDatagrams: number | null;
  readonly rxBytes: number | null;
  /** Seconds since the record arrived. */
  readonly age: number;
}

/** One connected URL of a dialling endpoint. */
export class ConnectionStats {
  private constructor();
  /** The address exactly as dialled: never a resolved address or a learned key. */
  readonly url: string;
  /** The URL has a connection now. */
  readonly live: boolean;
  /** Seconds the current connection has been live; 0 while down. */
  readonly age: number;
  /** Connections made after the first. */
  readonly redials: number;
  /** QUIC's measurement; null on a local transport (inproc, unix) and while down. */
  readonly transport: TransportStats | null;
  /** The peer's path report: over QUIC with `pathReport` on both runtimes; else null. */
  readonly remote: RemoteStats | null;
}

/** What one dish lost at a radio, by cause (whole copies, except layersCut). */
export class DishDrops {
  private constructor();
  /** `"sha256:…"` the dish proved, or null (anonymous). */
  readonly peer: string | null;
  /** Its UDP address, telling anonymous dishes apart. */
  readonly addr: string;
  readonly subscriberBudget: number;
  readonly subscriberQueue: number;
  readonly superseded: number;
  readonly expired: number;
  readonly tooLarge: number;
  readonly noDatagrams: number;
  /** A datagram for a unix dish with no reverse connection parked (0 over QUIC). */
  readonly noParked: number;
  /** Copies that lost layers above 0 but kept layer 0. */
  readonly layersCut: number;
}

/** RADIO, the bound side: lossy fan-out of segments. Nothing here waits for a dish. */
export class Radio extends Handle {
  private constructor();
  /** Opens the next segment on topic, superseding the older copies in flight there. */
  segment(topic: string, options?: SegmentOptions): Segment;
  /** A one-packet segment to every matching dish; returns how many took it. */
  datagram(topic: string, payload: Bytes): number;
  dishCount(): number;
  /** Whole segments lost over every dish. */
  dropped(): number;
  dishDrops(): DishDrops[];
  path(): string;
}

/** One segment being written. Finish it; closing it unfinished cancels it (every dish copy is reset, none is taken for whole). */
export class Segment extends Handle {
  private constructor();
  /** Writes to layer 0; returns the copies that took the chunk. */
  write(chunk: Bytes): number;
  /** Writes to layer 0..15 (above: LimitExceeded). */
  writeLayer(layer: number, chunk: Bytes): number;
  finishLayer(layer: number): void;
  /** Ends every layer; returns the copies not lost (a second call throws NoReply). */
  finish(): number;
  /** The segment's number on its topic (from 0). */
  number(): number;
}

/** DISH, the dialling side: joins topics on radios and receives their segments. */
export class Dish extends Handle {
  private constructor();
  connect(url: string, options?: CallOptions): Promise<void>;
  /** Joins filter ("cam.#", "" for every topic); joining again updates the terms. */
  join(filter: string, options?: JoinOptions): Promise<void>;
  leave(filter: string, options?: CallOptions): Promise<void>;
  /** The next segment or datagram segment under maxBytes (above: LimitExceeded, the dish goes on). */
  recv(maxBytes: number | bigint, options?: CallOptions): Promise<DishMessage>;
  messages(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<DishMessage, void, undefined>;
  peerCount(): number;
  /** Each connected URL's statistics, in connect order (transport null over a local transport). */
  connectionStats(): ConnectionStats[];
}

/** An outgoing streamed transfer. Closing it unfinished resets it. */
export class OutgoingStream extends Handle {
  private constructor();
  write(chunk: Bytes, options?: CallOptions): Promise<void>;
  /** Sends the end and waits for the transport receipt. */
  finish(options?: CallOptions): Promise<void>;
  /** Resets the stream: the reader sees Canceled. */
  cancel(): Promise<void>;
  /** The cursors of the report this stream ordered, once; null otherwise. */
  cursors(): Promise<Cursors | null>;
}

/** An incoming streamed transfer. Closing it early refuses the rest. */
export class IncomingStream extends Handle {
  private constructor();
  /** The next piece of at most maxBytes; an empty Buffer at the end. */
  read(maxBytes: number | bigint, options?: CallOptions): Promise<Buffer>;
  /** The rest, whole, under maxBytes (else LimitExceeded). */
  collect(maxBytes: number | bigint, options?: CallOptions): Promise<Buffer>;
  /** The pieces, for `for await`, until the end. */
  chunks(maxBytes: number | bigint, options?: CallOptions): AsyncGenerator<Buffer, void, undefined>;
  /** The Reporter of the report the sender ordered, once; null otherwise. */
  reporter(): Promise<Reporter | null>;
}

/** The reply half of an exchange opened with Requester.open. */
export class Reply extends Handle {
  private constructor();
  /** A loss after the request's end is Indeterminate, never ConnectionLost. */
  recv(options?: CallOptions): Promise<IncomingTransfer>;
}

/** One streamed publication. Closing it unfinished cancels every copy. */
export class FanOut extends Handle {
  private constructor();
  /** The topic published. */
  readonly topic: string;
  /** Resolves to the copies left. */
  writeWithin(chunk: Bytes, seconds: number, options?: CallOptions): Promise<number>;
  writeNow(chunk: Bytes): Promise<number>;
  subscribers(): Promise<number>;
  /** Resolves to how many subscribers got all of it; a second finish rejects with NoReply. */
  finish(): Promise<number>;
}

/** The sender's view of the report it ordered: per level, the highest offset reported. */
export class Cursors extends Handle {
  private constructor();
  /** level -> offset of every level reported so far, levels ascending. */
  snapshot(): Map<number, number>;
  /** The highest offset reported for level; null when none yet. */
  offset(level: Level): number | null;
  /** Waits until the cursors moved: the new snapshot, or null once the report ended. */
  changed(options?: CallOptions): Promise<Map<number, number> | null>;
  /** Every change, for `for await`, until the report ends. */
  changes(options?: CallOptions): AsyncGenerator<Map<number, number>, void, undefined>;
}

/** The receiving side of a report order. Always finish it. */
export class Reporter extends Handle {
  private constructor();
  /** The levels the sender ordered, ascending. */
  readonly levels: number[];
  /** PROGRESS or FINAL_ONLY, as the sender asked. */
  readonly mode: number;
  /** Payload bytes [0, offset) reached level; an unordered level is ignored. */
  report(level: Level, offset: number | bigint): Promise<void>;
  /** Ends the report, once (a second call rejects with NoReply). */
  finish(): Promise<void>;
}

/** Base of every weida failure; message is the library's own sentence. */
export class WeidaError extends Error {
  /** The C code, e.g. 19 (100 for a closed handle), as in weida.h and on Python's errors. */
  readonly code: number;
  /** The same number as code (kept from before code was numeric). */
  readonly errno: number;
  /** The C code's name, e.g. "WEIDA_ELIMIT" ("WEIDA_EBADHANDLE" for a closed handle). */
  readonly codeName: string;
  /** The library's variant name, e.g. "LimitExceeded" ("Runtime" for RuntimeFailure). */
  readonly kind: string;
}
/** The runtime failed or was used wrongly; also the ABI's own failures. */
export class RuntimeFailure extends WeidaError {}
export class InvalidAddress extends WeidaError {}
export class InvalidEndpointPath extends WeidaError {}
export class InvalidFingerprint extends WeidaError {}
export class AlreadyRegistered extends WeidaError {}
export class AddressInUse extends WeidaError {}
export class NotConnected extends WeidaError {}
/** A definite failure: the connection was lost before the outcome was settled. */
export class ConnectionLost extends WeidaError {}
export class Negotiation extends WeidaError {}
export class Protocol extends WeidaError {}
export class Rejected extends WeidaError {}
export class UnknownEndpoint extends WeidaError {}
export class Unsupported extends WeidaError {}
export class NoParkedConnection extends WeidaError {}
export class NoReply extends WeidaError {}
export class Canceled extends WeidaError {}
export class Expired extends WeidaError {}
/** The outcome is unknown: a sibling of ConnectionLost, never a subclass. */
export class Indeterminate extends WeidaError {}
export class LimitExceeded extends WeidaError {}
export class DatagramsUnavailable extends WeidaError {}
export class TooLarge extends WeidaError {}
export class Tls extends WeidaError {}
/** The message names the key that answered. */
export class Untrusted extends WeidaError {}
export class UntrustedPrincipal extends WeidaError {}
export class Io extends WeidaError {}
export class Transport extends WeidaError {}

/** Diagnostics for tests and leak checks. */
export const diagnostics: {
  /** Open library handles in the whole process. */
  handlesLive(): number;
  /** Calls of this thread whose completion has not been delivered yet. */
  pendingOperations(): number;
  /** The library's version string. */
  libraryVersion(): string;
  /** Log lines dropped because the queue to the JS thread was full. */
  logLinesDropped(): number;
};

/** A library log level. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Sets the one log callback: (level, message, attrs) for every library
 * line at minLevel or above (default 'info'): connections opened and
 * closed at 'info', failed negotiations at 'warn' naming the dimension,
 * refused transfers at 'debug'; nothing per message at 'info' or above.
 * It runs on the JS thread. null removes it, after which it is never
 * called again. A callback that throws is reported once (a process
 * warning) and dropped. Logging never keeps the process alive.
 */
export function onLog(
  callback: ((level: LogLevel, message: string, attrs: Record<string, string>) => void) | null,
  minLevel?: LogLevel,
): void;

/** What a dialling endpoint presents to the servers it connects to. */
export interface DiallerOptions {
  /** The key presented to servers (a broker that lists client keys needs it); none: anonymous. */
  identity?: Identity;
}


