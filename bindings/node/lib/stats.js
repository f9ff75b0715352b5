'use strict';
/**
 * Connection statistics (SURFACE.md §2.4): the frozen values every dialling
 * endpoint's `connectionStats()` returns. Nothing is invented: a local
 * transport (`weida+inproc://`, `weida+unix://`) has no network path, so
 * its `transport` is null; `remote` needs peers that exchange path reports,
 * which this build does not, so it is always null. Times are seconds.
 * @module weida/lib/stats
 */

/**
 * quic-go's view of the network path (RFC 9002 §5). quic-go does not
 * expose the path MTU, so `currentMtu` is always null in this build.
 */
class PathStats {
  /** @param {object} raw (internal) */
  constructor(raw) {
    /** @type {number} smoothed round-trip time, seconds */
    this.rtt = raw.rtt;
    /** @type {number} seconds */
    this.minRtt = raw.minRtt;
    /** @type {number} seconds */
    this.latestRtt = raw.latestRtt;
    /** @type {number} mean deviation, seconds */
    this.rttVariation = raw.rttVariation;
    /** @type {number} bytes, QUIC packet overhead included */
    this.congestionWindow = raw.congestionWindow;
    /** @type {number} may fall: a packet declared lost can still arrive */
    this.lostPackets = raw.lostPackets;
    /** @type {number} */
    this.lostBytes = raw.lostBytes;
    /** @type {null} not exposed by quic-go */
    this.currentMtu = null;
    Object.freeze(this);
  }
}

/**
 * Traffic one way. quic-go counts QUIC packets (coalesced handshake packets
 * count one each, so this is not a count of UDP datagrams) and their bytes
 * without UDP/IP headers, retransmissions included.
 */
class UdpCounts {
  /**
   * @param {number} packets (internal)
   * @param {number} bytes (internal)
   */
  constructor(packets, bytes) {
    /** @type {number} */
    this.packets = packets;
    /** @type {number} */
    this.bytes = bytes;
    Object.freeze(this);
  }
}

/** What a QUIC connection's stack measures: the path and each way's traffic. */
class TransportStats {
  /** @param {object} raw (internal) */
  constructor(raw) {
    /** @type {PathStats} */
    this.path = new PathStats(raw);
    /** @type {UdpCounts} sent */
    this.tx = new UdpCounts(raw.txPackets, raw.txBytes);
    /** @type {UdpCounts} received */
    this.rx = new UdpCounts(raw.rxPackets, raw.rxBytes);
    Object.freeze(this);
  }
}

/** The peer's own path report; never present in this build. */
class RemoteStats {
  /** @param {number} rtt (internal) seconds */
  constructor(rtt) {
    /** @type {number} seconds */
    this.rtt = rtt;
    Object.freeze(this);
  }
}

/** One connected URL of a dialling endpoint. */
class ConnectionStats {
  /** @param {object} raw (internal) the addon's flat figures */
  constructor(raw) {
    /** @type {string} the address exactly as dialled: never a resolved address or a learned key */
    this.url = raw.url;
    /** @type {boolean} the URL has a connection now */
    this.live = raw.live;
    /** @type {number} seconds the current connection has been live; 0 while down */
    this.age = raw.age;
    /** @type {number} connections made after the first */
    this.redials = raw.redials;
    /** @type {TransportStats | null} QUIC's measurement; null on a local transport and while down */
    this.transport = raw.hasTransport ? new TransportStats(raw) : null;
    /** @type {RemoteStats | null} null: no path reports in this build */
    this.remote = raw.hasRemote ? new RemoteStats(raw.remoteRtt) : null;
    Object.freeze(this);
  }
}

/**
 * An endpoint's statistics, in connect order, from the addon's flat form.
 * @param {object[]} raw
 * @returns {ConnectionStats[]}
 */
function connectionStats(raw) {
  return raw.map((r) => new ConnectionStats(r));
}

module.exports = { ConnectionStats, TransportStats, PathStats, UdpCounts, RemoteStats, connectionStats };
