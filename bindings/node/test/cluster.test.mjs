// A replicated queue on three `weida broker --cluster` members
// (docs/CLUSTER.md §5): a producer given one member's URL is taken to the
// queue's leader by the Go core and hears ACCEPTED, REPLICATED and
// PROCESSED. Each member's URL is tried in turn, so at least two of the
// producers start at a follower.
//
// The members are child processes of WEIDA_CLI (tests/node/run.sh builds
// it); their keys, ports and cluster file are made here, and the trust is
// the file `--trust-out` writes.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import weida from 'weida';
import { MIB } from './support.mjs';

const { ACCEPTED, REPLICATED, PROCESSED } = weida;
const LEVELS = [ACCEPTED, REPLICATED, PROCESSED];
const START_MS = 10_000;

/** n loopback UDP ports nobody held a moment ago (all held at once, so none repeats). */
async function freePorts(n) {
  const socks = [];
  for (let i = 0; i < n; i++) {
    const s = createSocket('udp4');
    s.bind(0, '127.0.0.1');
    await once(s, 'listening');
    socks.push(s);
  }
  const ports = socks.map((s) => s.address().port);
  for (const s of socks) s.close();
  return ports;
}

/** Starts one member and resolves to the address it prints first. */
async function startMember(t, args, stderr) {
  const child = spawn(process.env.WEIDA_CLI, ['broker', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.setEncoding('utf8').on('data', (s) => { stderr.push(s); });
  const exited = once(child, 'exit');
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const lines = createInterface({ input: child.stdout });
  const first = once(lines, 'line');
  const timeout = new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`a member printed no address within ${START_MS} ms: ${stderr.join('')}`)), START_MS);
    first.finally(() => clearTimeout(timer));
  });
  const [url] = await Promise.race([first, timeout, exited.then(() => { throw new Error(`a member exited: ${stderr.join('')}`); })]);
  assert.match(url, /^weida:\/\//);
  return url;
}

/** Three members serving the replicated, written queue /jobs: {urls, trust}. */
async function startCluster(t) {
  const cli = process.env.WEIDA_CLI;
  assert.ok(cli, 'WEIDA_CLI must name the weida CLI binary (tests/node/run.sh builds it)');
  const root = mkdtempSync(join(tmpdir(), 'weida-cluster-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const ports = await freePorts(6);
  const keys = [];
  const members = [];
  for (let i = 0; i < 3; i++) {
    keys.push(join(root, `member${i}.pem`));
    const fp = execFileSync(cli, ['keygen', keys[i]], { encoding: 'utf8' }).trim();
    members.push({ url: `weida://${fp}@127.0.0.1:${ports[2 * i]}`, raft: `127.0.0.1:${ports[2 * i + 1]}` });
  }
  const config = join(root, 'cluster.json');
  writeFileSync(config, JSON.stringify({ members, queues: [{ path: '/jobs', durability: 'written' }] }));
  const trust = join(root, 'members.keys');
  const stderr = [];
  const urls = [];
  for (let i = 0; i < 3; i++) {
    const args = [`weida://127.0.0.1:${ports[2 * i]}/jobs`, '--cluster', config, '--identity', keys[i], '--data', join(root, `data${i}`)];
    if (i === 0) args.push('--trust-out', trust);
    urls.push(await startMember(t, args, stderr));
  }
  return { urls, trust };
}

/** Reads the cursors' changes until level shows; fails if the report ends first. */
async function untilLevel(cursors, level) {
  for await (const snapshot of cursors.changes()) {
    if (snapshot.has(level)) return;
  }
  assert.fail(`the report ended without level ${level}: ${[...cursors.snapshot()]}`);
}

test('a producer given any member reaches the leader', async (t) => {
  const { urls, trust: keys } = await startCluster(t);
  const trust = weida.Trust.pinFile(keys);
  const sub = new weida.Runtime().subscriber(trust);
  await sub.connect(urls[urls.length - 1]);
  await sub.subscribe('');
  await sub.grant(urls.length);
  for (const [i, url] of urls.entries()) {
    const pusher = new weida.Runtime().pusher(trust);
    await pusher.connect(url);
    const body = Buffer.from(`job via member ${i}`);
    const cursors = await pusher.send(body, { report: LEVELS });

    const got = await sub.recvReporting(MIB);
    assert.deepEqual(got.payload, body);
    await got.reporter.report(PROCESSED, got.payload.length);
    await got.reporter.finish();

    await untilLevel(cursors, PROCESSED);
    assert.deepEqual(cursors.snapshot(), new Map(LEVELS.map((l) => [l, body.length])), `member ${i}'s producer`);
    pusher.close();
  }
  sub.close();
});
