'use strict';
/**
 * bench.js — the Node figures beside Go's BenchmarkExchange1KiB and
 * BenchmarkPush64B (core/bench_test.go) and bindings/python/bench.py: both
 * ends in one process over QUIC on loopback, one connection established
 * before the clock starts.
 *
 *     node bench.js [--n N]
 *
 *   reqrep_1k   one 1 KiB request and its 1 KiB echo, one after another:
 *               median and p99 round trip (µs), and round trips per second
 *   push_64b    64-byte messages, each send awaited before the next; the
 *               clock stops once the puller has read them all (msgs/s, and
 *               the median and p99 of one send)
 *   push_64b_x64  the same with 64 sends in flight at a time
 *
 * The echo replier and the draining puller run in a worker thread (as
 * Python's run on threads), so only the measured client shares the main
 * thread's event loop. Each figure is one JSON line
 * {"surface":"node","workload":...,"median_us":...,"p99_us":...,"msgs_per_s":...}
 * followed by a human-readable line.
 */
const path = require('node:path');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const KIB = 1 << 10;
const WINDOW = 64;

/** The package this script belongs to (a staged copy has its addon inside). */
const weida = require(path.join(__dirname, 'index.js'));

/** Worker thread: an echo replier and a draining puller until told to stop. */
async function serve() {
  const runtime = new weida.Runtime();
  const binding = await runtime.bind('127.0.0.1:0', weida.Identity.generate());
  const replier = binding.replier('/echo');
  const puller = binding.puller('/sink');
  let expected = Infinity;
  let read = 0;
  parentPort.on('message', (message) => {
    if (message.expect !== undefined) {
      expected = message.expect;
      read = 0;
    } else if (message.stop) {
      replier.close(); // ends both loops; the worker then exits on its own
      puller.close();
      parentPort.close();
    }
  });
  parentPort.postMessage({ echo: binding.url('/echo'), sink: binding.url('/sink') });
  await Promise.all([
    (async () => {
      for await (const request of replier.requests(KIB)) await request.reply(request.payload);
    })(),
    (async () => {
      for await (const _ of puller.messages(KIB)) {
        if (++read === expected) parentPort.postMessage({ drained: read });
      }
    })(),
  ]);
}

/** The nearest-rank percentile of ascending values, as tests/bench computes Go's. */
function percentile(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function figures(workload, micros, msgsPerSecond) {
  const sorted = micros ? Float64Array.from(micros).sort() : null;
  const line = {
    surface: 'node',
    workload,
    median_us: sorted ? round(percentile(sorted, 0.5)) : null,
    p99_us: sorted ? round(percentile(sorted, 0.99)) : null,
    msgs_per_s: round(msgsPerSecond),
  };
  console.log(JSON.stringify(line));
  const latency = sorted ? `median ${line.median_us.toFixed(1)} µs   p99 ${line.p99_us.toFixed(1)} µs   ` : '';
  console.log(`node ${workload.padEnd(14)} ${latency}${Math.round(msgsPerSecond)} msgs/s`);
}

function round(x) {
  return Math.round(x * 10) / 10;
}

const now = () => process.hrtime.bigint();
const micros = (start, end) => Number(end - start) / 1e3;

async function main() {
  const at = process.argv.indexOf('--n');
  const n = at >= 0 ? Number(process.argv[at + 1]) : 3000;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be an integer of at least 1, got ${process.argv[at + 1]}`);

  const server = new Worker(__filename, { workerData: { serve: true } });
  const messages = [];
  let wake = null;
  server.on('message', (m) => {
    messages.push(m);
    if (wake) wake();
  });
  server.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
  const next = async () => {
    while (messages.length === 0) await new Promise((resolve) => { wake = resolve; });
    wake = null;
    return messages.shift();
  };
  const { echo, sink } = await next();

  const client = new weida.Runtime();
  const requester = client.requester(weida.Trust.byAddress());
  await requester.connect(echo);
  const body = Buffer.alloc(KIB);
  await requester.request(body, KIB); // warm
  const rtts = new Array(n);
  const begin = now();
  for (let i = 0; i < n; i++) {
    const start = now();
    await requester.request(body, KIB);
    rtts[i] = micros(start, now());
  }
  figures('reqrep_1k', rtts, n / (micros(begin, now()) / 1e6));

  const pusher = client.pusher(weida.Trust.byAddress());
  await pusher.connect(sink);
  server.postMessage({ expect: 1 });
  await pusher.send(Buffer.alloc(64)); // warm
  await next();
  const small = Buffer.alloc(64);
  const sends = new Array(n);
  server.postMessage({ expect: n });
  let start = now();
  for (let i = 0; i < n; i++) {
    const t = now();
    await pusher.send(small);
    sends[i] = micros(t, now());
  }
  await next();
  figures('push_64b', sends, n / (micros(start, now()) / 1e6));

  const windows = Math.floor(n / WINDOW);
  if (windows > 0) { // a run shorter than one window has no windowed figure
    server.postMessage({ expect: windows * WINDOW });
    start = now();
    for (let w = 0; w < windows; w++) {
      await Promise.all(Array.from({ length: WINDOW }, () => pusher.send(small)));
    }
    await next();
    figures(`push_64b_x${WINDOW}`, null, (windows * WINDOW) / (micros(start, now()) / 1e6));
  }
  server.postMessage({ stop: true });
  // Nothing else is closed: idle handles do not keep the process alive.
}

if (isMainThread) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else if (workerData?.serve) {
  serve().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
