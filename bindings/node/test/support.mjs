// Shared test scaffolding: a served binding, waiting on observable
// conditions. Tests import the INSTALLED package ('weida'), never the source
// tree; tests/node/run.sh runs them under `node --test --test-timeout`, so a
// deadlock fails its test instead of hanging the run.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import weida from 'weida';

export const MIB = 1 << 20;

/**
 * include/weida.h of the checkout under test, or null when there is none.
 * WEIDA_HEADER names it where the tests run from a copy outside the tree
 * (tests/node/run.sh sets it; a wrong path then fails the read, loudly);
 * otherwise it is looked for in the directories above this file.
 */
export function headerPath() {
  if (process.env.WEIDA_HEADER) return process.env.WEIDA_HEADER;
  for (let dir = dirname(new URL(import.meta.url).pathname); ; dir = dirname(dir)) {
    const candidate = join(dir, 'include', 'weida.h');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** {server, binding, client}: a server runtime bound on loopback and a client runtime. */
export async function served() {
  const server = new weida.Runtime();
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  return { server, binding, client: new weida.Runtime() };
}

/** The trust every client test uses: the key the URL names. */
export function byAddress() {
  return weida.Trust.byAddress();
}

/**
 * Waits for a condition the library reaches asynchronously (a subscription
 * arriving at the publisher, a peer count), polling every 2 ms.
 */
export async function until(condition, what, seconds = 5) {
  const end = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** A requester connected to a replier at path: {replier, requester}. */
export async function reqRep(path = '/echo') {
  const { binding, client } = await served();
  const replier = binding.replier(path);
  const requester = client.requester(byAddress());
  await requester.connect(binding.url(path));
  return { binding, client, replier, requester };
}

/** A pusher connected to a puller at path: {puller, pusher}. */
export async function pushPull(path = '/sink') {
  const { binding, client } = await served();
  const puller = binding.puller(path);
  const pusher = client.pusher(byAddress());
  await pusher.connect(binding.url(path));
  return { binding, client, puller, pusher };
}

// Every test of a file that imports this one must leave no call pending: a
// forgotten one would keep the file's process alive (by design) and hide
// which test forgot it. Completions of aborted calls may still be in flight.
afterEach(async () => {
  await until(() => weida.diagnostics.pendingOperations() === 0, 'the calls this test left pending', 2);
});
