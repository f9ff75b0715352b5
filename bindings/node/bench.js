'use strict';
/**
 * bench.js — the Node figures beside Go's BenchmarkExchange1KiB and
 * BenchmarkPush64B (core/bench_test.go) and bindings/python/bench.py: one
 * connection established before the clock starts, over QUIC on loopback.
 *
 *     node bench.js [--n N] [--server thread|process] [--weida PATH]
 *
 *   reqrep_1k   one 1 KiB request and its 1 KiB echo, one after another:
 *               median and p99 round trip (µs), and round trips per second
 *   push_64b    64-byte messages, each send awaited before the next; the
 *               clock stops once the puller has read them all (msgs/s, and
 *               the median and p99 of one send)
 *   push_64b_x64  the same with 64 sends in flight at a time
 *
 * By default (--server thread) the echo replier and the draining puller
 * run in a worker thread of this process (as Python's run on threads), so
 * only the measured client shares the main thread's event loop. With
 * --server process they are instead two `weida serve` processes (--echo
 * and --sink; the Go CLI, `go build -o /tmp/weida ./cmd/weida`, named by
 * --weida or WEIDA_CLI), as bench.py's --server process: the client then
 * shares nothing with the server, and the figures are the binding's
 * client's alone. The sink writes every payload to its stdout; counting
 * those bytes tells when it has read so many messages.
 *
 * Each figure is one JSON line
 * {"surface":"node","workload":...,"median_us":...,"p99_us":...,"msgs_per_s":...}
 * followed by a human-readable line.
 */
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const KIB = 1 << 10;
const SMALL = 64;
const WINDOW = 64;
const USAGE = 'usage: node bench.js [--n N] [--server thread|process] [--weida PATH]';

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

/**
 * The echo and sink in a worker thread (serve() above). expect(k), called
 * before k messages are pushed, resolves once the puller has read them.
 */
async function threadServer() {
  const worker = new Worker(__filename, { workerData: { serve: true } });
  const messages = [];
  let wake = null;
  worker.on('message', (m) => {
    messages.push(m);
    if (wake) wake();
  });
  worker.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
  const next = async () => {
    while (messages.length === 0) await new Promise((resolve) => { wake = resolve; });
    wake = null;
    return messages.shift();
  };
  const { echo, sink } = await next();
  return {
    echo,
    sink,
    expect(k) {
      worker.postMessage({ expect: k });
      return next();
    },
    stop() {
      worker.postMessage({ stop: true });
    },
  };
}

/**
 * threadServer()'s twin with `weida serve --echo` and `--sink` processes of
 * the CLI at cli: each prints its dialling address as its first line of
 * stdout, and the sink then writes every payload there, so counting its
 * bytes tells when it has read so many messages.
 */
async function processServer(cli) {
  let stopping = false;
  const start = (role, urlPath, counted) => new Promise((resolve, reject) => {
    const child = spawn(cli, ['serve', role, `weida://127.0.0.1:0${urlPath}`], { stdio: ['ignore', 'pipe', 'ignore'] });
    let head = Buffer.alloc(0);
    let url = null;
    child.on('error', (e) => reject(new Error(`starting ${cli} serve ${role}: ${e.message}`)));
    child.on('exit', (code, signal) => {
      if (url === null) {
        reject(new Error(`${cli} serve ${role} ended (${signal ?? `exit ${code}`}) before printing its address`));
      } else if (!stopping) {
        console.error(`${cli} serve ${role} ended (${signal ?? `exit ${code}`}) during the run`);
        process.exit(1);
      }
    });
    child.stdout.on('data', (chunk) => {
      if (url === null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(0x0a);
        if (end < 0) return;
        url = head.subarray(0, end).toString().trim();
        chunk = head.subarray(end + 1);
        resolve({ child, url });
      }
      counted(chunk.length);
    });
  });
  let read = 0;
  let expected = 0;
  let drained = null;
  const echo = await start('--echo', '/echo', () => {});
  const sink = await start('--sink', '/sink', (n) => {
    read += n;
    if (drained && read >= expected) {
      drained();
      drained = null;
    }
  });
  return {
    echo: echo.url,
    sink: sink.url,
    expect(k) {
      expected += k * SMALL;
      return new Promise((resolve) => {
        if (read >= expected) resolve();
        else drained = resolve;
      });
    },
    stop() {
      stopping = true;
      echo.child.kill('SIGTERM');
      sink.child.kill('SIGTERM');
    },
  };
}

/** The command line's options, or an error naming what is wrong. */
function options(argv) {
  const opts = { n: 3000, server: 'thread', weida: process.env.WEIDA_CLI || 'weida' };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (!['--n', '--server', '--weida'].includes(name)) throw new Error(`unknown argument ${name}; ${USAGE}`);
    if (value === undefined) throw new Error(`${name} needs a value; ${USAGE}`);
    if (name === '--n') opts.n = Number(value);
    else opts[name.slice(2)] = value;
  }
  if (!Number.isInteger(opts.n) || opts.n < 1) throw new Error(`--n must be an integer of at least 1, got ${opts.n}`);
  if (!['thread', 'process'].includes(opts.server)) throw new Error(`--server must be thread or process, got ${opts.server}`);
  return opts;
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
  const { n, server: kind, weida: cli } = options(process.argv.slice(2));
  console.log(`server: ${kind}`);
  const server = kind === 'process' ? await processServer(cli) : await threadServer();

  const client = new weida.Runtime();
  const requester = client.requester(weida.Trust.byAddress());
  await requester.connect(server.echo);
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
  await pusher.connect(server.sink);
  const warm = server.expect(1);
  await pusher.send(Buffer.alloc(SMALL));
  await warm;
  const small = Buffer.alloc(SMALL);
  const sends = new Array(n);
  let drained = server.expect(n);
  let start = now();
  for (let i = 0; i < n; i++) {
    const t = now();
    await pusher.send(small);
    sends[i] = micros(t, now());
  }
  await drained;
  figures('push_64b', sends, n / (micros(start, now()) / 1e6));

  const windows = Math.floor(n / WINDOW);
  if (windows > 0) { // a run shorter than one window has no windowed figure
    drained = server.expect(windows * WINDOW);
    start = now();
    for (let w = 0; w < windows; w++) {
      await Promise.all(Array.from({ length: WINDOW }, () => pusher.send(small)));
    }
    await drained;
    figures(`push_64b_x${WINDOW}`, null, (windows * WINDOW) / (micros(start, now()) / 1e6));
  }
  server.stop();
  // Nothing else is closed: idle handles do not keep the process alive.
}

if (isMainThread) {
  main().catch((error) => {
    // The stack, then the message alone: tests/bench quotes the last lines.
    console.error(error);
    console.error(`bench.js: ${error?.message ?? error}`);
    process.exit(1);
  });
} else if (workerData?.serve) {
  serve().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
