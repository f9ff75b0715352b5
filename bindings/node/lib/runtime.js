'use strict';
/**
 * {@link Runtime} and {@link Binding}: where every endpoint comes from.
 * @module weida/lib/runtime
 */
const native = require('./native');
const { Handle, waiting, expect } = require('./handle');
const { Trust, Identity } = require('./values');
const { Requester, Replier, Pusher, Puller, Publisher, Subscriber } = require('./patterns');
const { Paired, Surveyor, Respondent, BusMember } = require('./peers');
const { Radio, Dish } = require('./radio');
const { guaranteeSets } = require('./guarantees');

const U32_MAX = 2 ** 32 - 1;

/**
 * One QUIC socket, in-process bus or unix socket serving its runtime's paths
 * (from `Runtime.bind`, `bindInproc` or `bindUnix`).
 * Registrations throw `AlreadyRegistered` / `InvalidEndpointPath`; closing
 * the binding stops serving its socket.
 */
class Binding extends Handle {
  /**
   * The bound `"ip:port"`, with the real port; the bus name of an
   * in-process binding, the socket path of a unix one.
   */
  localAddr() {
    return native.bindingLocalAddr(this._h);
  }

  /**
   * `"sha256:…"` of the key this binding proves; null for an in-process or
   * unix binding, which proves none.
   * @returns {string | null}
   */
  fingerprint() {
    return native.bindingFingerprint(this._h) || null;
  }

  /**
   * The dialling URL of `path`: a client's whole configuration.
   * @param {string} path
   */
  url(path) {
    return native.bindingUrl(this._h, path);
  }

  /** @param {string} path the Req/Rep answering endpoint's path */
  replier(path) {
    return new Replier(native.bindingReplier(this._h, path));
  }

  /** @param {string} path the Push/Pull receiving endpoint's path */
  puller(path) {
    return new Puller(native.bindingPuller(this._h, path));
  }

  /** @param {string} path the Pub/Sub publishing endpoint's path */
  publisher(path) {
    return new Publisher(native.bindingPublisher(this._h, path));
  }

  /** @param {string} path the bound end of a PAIR */
  pair(path) {
    return new Paired(native.bindingPair(this._h, path));
  }

  /** @param {string} path the SURVEY answering endpoint's path */
  respondent(path) {
    return new Respondent(native.bindingRespondent(this._h, path));
  }

  /** @param {string} path the RADIO endpoint's path: lossy fan-out of segments to dishes */
  radio(path) {
    return new Radio(native.bindingRadio(this._h, path));
  }

  /**
   * A BUS member bound at `path` that dials other members under `trust`.
   * @param {string} path
   * @param {Trust} trust
   */
  bus(path, trust) {
    return new BusMember(native.bindingBus(this._h, path, expect(trust, Trust, 'trust')._h));
  }
}

/**
 * A runtime: owns connections. Every object obtained from it keeps it
 * alive; it stops with the last of them. Open objects never keep the Node
 * process alive: only a pending call does.
 */
class Runtime extends Handle {
  /**
   * @param {{workerThreads?: number, datagrams?: boolean, pathReport?: boolean,
   *   ordering?: 'detect' | 'reassemble', dedupWindow?: number, acknowledgement?: number,
   *   require?: Iterable<string>}} [options]
   *   `workerThreads` is accepted for parity (Go schedules itself);
   *   `datagrams` turns on datagram flows (a 64 KiB receive budget; both
   *   ends need it, e.g. for `Radio.datagram`); `pathReport` exchanges path
   *   reports over QUIC (both ends need it; see `ConnectionStats.remote`). Guarantees: Push/Pull keeps no order unless
   *   `ordering` asks ('reassemble' releases a producer's messages in
   *   order, 'detect' reports gaps as `meta.missed`); `dedupWindow`
   *   (seconds) discards repeats; `acknowledgement` (e.g. ACCEPTED) is what
   *   a broker's client requires. What is set is required of every peer
   *   (else `connect` rejects with `Negotiation` naming the dimension);
   *   `require` names the dimensions to require, `[]` offering only.
   */
  constructor(options = {}) {
    const { workerThreads = 1, datagrams = false, pathReport = false } = options;
    if (!Number.isInteger(workerThreads)) {
      throw new TypeError(`workerThreads must be an integer, not ${typeof workerThreads}`);
    }
    if (workerThreads < 1 || workerThreads > U32_MAX) {
      throw new RangeError(`workerThreads must be at least 1 (got ${workerThreads})`);
    }
    const [offered, required] = guaranteeSets(options);
    super(native.runtimeNew(workerThreads, Boolean(datagrams), Boolean(pathReport), offered, required));
  }

  /**
   * One-way transfers this runtime read and discarded as repeats within
   * its `dedupWindow` (0 unless deduplication was agreed).
   * @returns {number}
   */
  suppressedDuplicates() {
    return native.runtimeSuppressedDuplicates(this._h);
  }

  /**
   * Binds a QUIC socket at `"host:port"` (port 0: the kernel chooses)
   * proving `identity`.
   * @param {string} addr
   * @param {Identity} identity
   * @returns {Promise<Binding>}
   */
  async bind(addr, identity) {
    const id = expect(identity, Identity, 'identity')._handle();
    return new Binding(native.bindQuic(this._h, addr, id));
  }

  /**
   * Serves this runtime's paths on the in-process bus named `bus`:
   * endpoints of any runtime in this thread's process dial
   * `weida+inproc://<bus>/<path>`, with no socket and no TLS. The name is
   * 1..256 bytes without `@`, `/` or control bytes (`InvalidAddress`) and
   * unique in the process (`AddressInUse`). Nothing waits, so no Promise.
   * @param {string} bus
   * @returns {Binding}
   */
  bindInproc(bus) {
    return new Binding(native.bindInproc(this._h, bus));
  }

  /**
   * Serves this runtime's paths on the unix socket at `path` (mode 0600),
   * dialled as `weida+unix://<percent-encoded path>/<path>`; a stale socket
   * file is replaced, a live one is `AddressInUse`. Peers are proved by the
   * kernel: `IncomingMeta.peer` is `"uid=… gid=… pid=…"`. An addition to
   * SURFACE.md §2.3. Nothing waits, so no Promise.
   * @param {string} path
   * @returns {Binding}
   */
  bindUnix(path) {
    return new Binding(native.bindUnix(this._h, path));
  }

  // Every dialling endpoint verifies servers under `trust` and, given
  // `{ identity }`, presents that key to them (a broker that lists client
  // keys needs it); without one it connects anonymously.

  /**
   * @param {Trust} trust how servers are verified
   * @param {{identity?: Identity}} [options] the key presented to servers
   */
  requester(trust, options) {
    return new Requester(native.runtimeRequester(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /** @param {Trust} trust how servers are verified @param {{identity?: Identity}} [options] */
  pusher(trust, options) {
    return new Pusher(native.runtimePusher(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /** @param {Trust} trust how servers are verified @param {{identity?: Identity}} [options] */
  subscriber(trust, options) {
    return new Subscriber(native.runtimeSubscriber(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /** @param {Trust} trust the dialling end of a PAIR @param {{identity?: Identity}} [options] */
  pair(trust, options) {
    return new Paired(native.runtimePair(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /** @param {Trust} trust a SURVEY asker @param {{identity?: Identity}} [options] */
  surveyor(trust, options) {
    return new Surveyor(native.runtimeSurveyor(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /** @param {Trust} trust how radios are verified @param {{identity?: Identity}} [options] */
  dish(trust, options) {
    return new Dish(native.runtimeDish(this._h, expect(trust, Trust, 'trust')._h, clientIdentity(options)));
  }

  /**
   * Waits up to `seconds` for finished transfers' receipts and the peers'
   * consumption, then ends the runtime (the C library's drain consumes it).
   * @param {number} seconds finite, not negative (else `RuntimeFailure`)
   * @param {{signal?: AbortSignal}} [options] an abort ends the drain early, abortively
   * @returns {Promise<{delivered: number, outstanding: number}>}
   */
  drain(seconds, options) {
    return waiting(options, () => native.runtimeDrain(this._h, seconds, this));
  }
}

/** The identity handle a dialling endpoint presents: 0n for none. */
function clientIdentity(options) {
  if (options === undefined || options === null || options.identity === undefined || options.identity === null) {
    return 0n;
  }
  return expect(options.identity, Identity, 'options.identity')._handle();
}

module.exports = { Runtime, Binding };
