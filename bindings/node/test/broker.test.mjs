// A queue served by the `weida broker` CLI, consumed by a Subscriber
// (BROKER.md §1, §6, §9, §11): credit, settlement by reporting PROCESSED,
// the broker's ACCEPTED certificate and the consumer's PROCESSED relayed to
// the producer, the confirm's `achieved` and redelivery's `deliveryAttempt`.
//
// The broker is a child process: WEIDA_CLI names the binary, which
// tests/node/run.sh builds before Go leaves PATH. Each test starts a broker
// of its own, so no test sees another's messages.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress } from './support.mjs';

const { ACCEPTED, PROCESSED } = weida;
const START_MS = 10_000;

/**
 * Starts `weida broker` with one memory queue at /jobs, stopped when the
 * test ends. Resolves to {url, stop}: stop() sends SIGTERM (the broker
 * retires its queue) and resolves to its stderr.
 */
async function startBroker(t, ...args) {
  const cli = process.env.WEIDA_CLI;
  assert.ok(cli, 'WEIDA_CLI must name the weida CLI binary (tests/node/run.sh builds it)');
  const child = spawn(cli, ['broker', 'weida://127.0.0.1:0/jobs', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    return stderr;
  };
  t.after(stop);
  const lines = createInterface({ input: child.stdout });
  const first = once(lines, 'line');
  const timeout = new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`weida broker printed no address within ${START_MS} ms: ${stderr}`)), START_MS);
    first.finally(() => clearTimeout(timer));
  });
  const [url] = await Promise.race([first, timeout, exited.then(() => { throw new Error(`weida broker exited: ${stderr}`); })]);
  assert.match(url, /^weida:\/\//);
  return { url, stop };
}

/** A subscriber on the queue, every topic, with credit granted. */
async function consumer(url, credit = 0) {
  const sub = new weida.Runtime().subscriber(byAddress());
  await sub.connect(url);
  await sub.subscribe('');
  if (credit) await sub.grant(credit);
  return sub;
}

async function settle({ payload, reporter }) {
  await reporter.report(PROCESSED, payload.length);
  await reporter.finish();
}

/** Reads the cursors' changes until level shows; fails if the report ends first. */
async function untilLevel(cursors, level) {
  for await (const snapshot of cursors.changes()) {
    if (snapshot.has(level)) return snapshot;
  }
  assert.fail(`the report ended without level ${level}: ${[...cursors.snapshot()]}`);
}

test('a round trip, settled by PROCESSED', async (t) => {
  const { url } = await startBroker(t);
  const pusher = new weida.Runtime().pusher(byAddress());
  await pusher.connect(url);
  const sub = await consumer(url);
  assert.equal(sub.granted(), 0);
  await pusher.send(Buffer.from('job-1'));
  await sub.grant(1);
  await sub.grant(1n); // not above the standing grant: ignored
  assert.equal(sub.granted(), 1);

  const got = await sub.recvReporting(MIB);
  assert.equal(got.payload.toString(), 'job-1');
  assert.ok(got.reporter instanceof weida.Reporter);
  assert.ok(got.reporter.levels.includes(PROCESSED));
  assert.equal(got.meta.deliveryAttempt, 1); // first delivery: nothing written, reads as 1
  assert.equal(got.meta.achieved, null);
  await settle(got);

  await pusher.send(Buffer.from('job-2'));
  await sub.grant(2);
  const next = await sub.recvReporting(MIB);
  assert.deepEqual([next.payload.toString(), next.meta.deliveryAttempt], ['job-2', 1]);
  await settle(next);
  sub.close();
  pusher.close();
});

test('the producer sees ACCEPTED, then the consumer\'s PROCESSED', async (t) => {
  const { url } = await startBroker(t);
  const pusher = new weida.Runtime().pusher(byAddress());
  await pusher.connect(url);
  const body = Buffer.alloc(10_000, 'o');
  const cursors = await pusher.send(body, { report: [ACCEPTED, PROCESSED] });

  // The broker certifies admission itself, before any consumer exists.
  await untilLevel(cursors, ACCEPTED);
  assert.deepEqual(cursors.snapshot(), new Map([[ACCEPTED, body.length]]));

  const sub = await consumer(url, 1);
  const got = await sub.recvReporting(MIB);
  assert.deepEqual(got.payload, body);
  await settle(got);

  await untilLevel(cursors, PROCESSED); // relayed at the producer's own length
  assert.deepEqual(cursors.snapshot(), new Map([[ACCEPTED, body.length], [PROCESSED, body.length]]));
  for await (const _ of cursors.changes()); // the report then ends
  sub.close();
  pusher.close();
});

test('a request\'s confirm carries achieved = ACCEPTED', async (t) => {
  const { url } = await startBroker(t);
  const requester = new weida.Runtime().requester(byAddress());
  await requester.connect(url);
  const { stream: out, reply } = await requester.open();
  await out.write(Buffer.from('order'));
  await out.finish();
  const { stream, meta } = await reply.recv();
  assert.equal(meta.achieved, ACCEPTED); // a memory queue's certificate
  assert.equal((await stream.collect(MIB)).length, 0); // the confirm has no body

  const sub = await consumer(url, 1);
  const got = await sub.recvReporting(MIB);
  assert.equal(got.payload.toString(), 'order');
  await settle(got);
  sub.close();
  requester.close();
});

test('a delivery given back comes again as attempt 2', async (t) => {
  const { url } = await startBroker(t);
  const pusher = new weida.Runtime().pusher(byAddress());
  await pusher.connect(url);
  const sub = await consumer(url, 2);
  await pusher.send(Buffer.from('flaky'));
  const first = await sub.recvReporting(MIB);
  assert.deepEqual([first.payload.toString(), first.meta.deliveryAttempt], ['flaky', 1]);
  await first.reporter.report(PROCESSED, 0); // nothing processed: give it back
  await first.reporter.finish();

  const again = await sub.recvReporting(MIB);
  assert.deepEqual([again.payload.toString(), again.meta.deliveryAttempt], ['flaky', 2]);
  await settle(again);
  sub.close();
  pusher.close();
});

test('an unsettled delivery comes again after its consumer closes', async (t) => {
  const broker = await startBroker(t);
  const pusher = new weida.Runtime().pusher(byAddress());
  await pusher.connect(broker.url);
  const first = await consumer(broker.url, 1);
  const cursors = await pusher.send(Buffer.from('unsettled'), { report: [PROCESSED] });
  const held = await first.recvReporting(MIB);
  assert.deepEqual([held.payload.toString(), held.meta.deliveryAttempt], ['unsettled', 1]);
  // Gone without a word: the broker requeues what this connection held.
  held.reporter.close();
  first.close();

  const second = await consumer(broker.url, 1);
  const again = await second.recvReporting(MIB);
  assert.deepEqual([again.payload.toString(), again.meta.deliveryAttempt], ['unsettled', 2]);
  await settle(again);
  // The producer sees the relayed PROCESSED, so the broker has it: it
  // retires with nothing held.
  await untilLevel(cursors, PROCESSED);
  second.close();
  pusher.close();
  assert.match(await broker.stop(), /\b0 held undelivered/);
});

test('grant refuses what is not a count', async (t) => {
  const { url } = await startBroker(t);
  const sub = await consumer(url);
  await assert.rejects(sub.grant(-1), RangeError);
  await assert.rejects(sub.grant(1.5), RangeError);
  await assert.rejects(sub.grant('1'), TypeError);
  await sub.grant(2n ** 70n); // above 2^64-1: every message
  assert.equal(sub.granted(), 2 ** 64);
  sub.close();
  await assert.rejects(sub.grant(1), weida.RuntimeFailure);
});

test('a broker that lists client keys serves a listed identity and refuses the rest', async (t) => {
  const listed = weida.Identity.generate();
  const stranger = weida.Identity.generate();
  const dir = mkdtempSync(join(tmpdir(), 'weida-keys-'));
  const keys = join(dir, 'clients.keys');
  writeFileSync(keys, `${listed.fingerprint()}\n`);
  // On loopback anonymous clients are admitted unless the rules say not.
  const conf = join(dir, 'broker.json');
  writeFileSync(conf, '{"access": {"anonymous": false}}');
  const { url } = await startBroker(t, '--clients', keys, '--config', conf);
  const pusher = new weida.Runtime().pusher(byAddress(), { identity: listed });
  await pusher.connect(url);
  await pusher.send(Buffer.from('from a listed key'));
  const sub = new weida.Runtime().subscriber(byAddress(), { identity: listed });
  await sub.connect(url);
  await sub.subscribe('');
  await sub.grant(1);
  const got = await sub.recvReporting(MIB);
  assert.equal(got.payload.toString(), 'from a listed key');
  await settle(got);
  for (const identity of [undefined, stranger]) {
    await assert.rejects(new weida.Runtime().requester(byAddress(), { identity }).connect(url),
      (e) => e instanceof weida.WeidaError, `connecting with ${identity ? 'an unlisted key' : 'no key'}`);
  }
});
