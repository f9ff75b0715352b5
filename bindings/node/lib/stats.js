'use strict';
/**
 * Connection statistics (SURFACE.md §2.4): the frozen values every dialling
 * endpoint's `connectionStats()` returns. Nothing is invented: a local
 * transport (`weida+inproc://`, `weida+unix://`) has no network path, so
 * its `transport` is null; `remote` is the peer's own path report, over QUIC
 * when both runtimes were made with `pathReport: true`. Times are seconds.
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

/**
 * The peer's own path report (PROTOCOL.md §8.9): what its QUIC stack
 * measured, as of the newest record it sent (one every 2 s). A figure the
 * peer did not state is null, never 0.
 */
class RemoteStats {
  /** @param {object} raw (internal) the addon's flat figures */
  constructor(raw) {
    /** @type {number | null} smoothed RTT, seconds */
    this.rtt = raw.remoteRtt;
    /** @type {number | null} seconds */
    this.minRtt = raw.remoteMinRtt;
    /** @type {number | null} bytes */
    this.congestionWindow = raw.remoteCongestionWindow;
    /** @type {number | null} */
    this.congestionEvents = raw.remoteCongestionEvents;
    /** @type {number | null} */
    this.lostPackets = raw.remoteLostPackets;
    /** @type {number | null} */
    this.lostBytes = raw.remoteLostBytes;
    /** @type {number | null} */
    this.sentPackets = raw.remoteSentPackets;
    /** @type {number | null} */
    this.currentMtu = raw.remoteCurrentMtu;
    /** @type {number | null} */
    this.txDatagrams = raw.remoteTxDatagrams;
    /** @type {number | null} */
    this.txBytes = raw.remoteTxBytes;
    /** @type {number | null} */
    this.rxDatagrams = raw.remoteRxDatagrams;
    /** @type {number | null} */
    this.rxBytes = raw.remoteRxBytes;
    /** @type {number} seconds since the record arrived */
    this.age = raw.remoteAge;
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
    /** @type {RemoteStats | null} the peer's path report; null without one (always on a local transport) */
    this.remote = raw.hasRemote ? new RemoteStats(raw) : null;
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
