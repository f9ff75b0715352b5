// Concurrency and process lifetime: completions cross threads without
// blocking the JS thread, idle handles never keep the process alive, and
// close() releases everything.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, served } from './support.mjs';

/** Runs a script in a fresh node (resolving 'weida' from here) and waits for it to exit. */
function runScript(source, seconds = 12, flags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', source], { cwd: process.cwd() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${seconds} s: the process did not exit on its own\n${stdout}${stderr}`));
    }, seconds * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

test('1000 concurrent requests complete, then the process exits on its own', async () => {
  const { code, stdout, stderr } = await runScript(`
    import weida from 'weida';
    const N = 1000;
    const server = new weida.Runtime();
    const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
    const replier = binding.replier('/echo');
    const requester = new weida.Runtime().requester(weida.Trust.byAddress());
    await requester.connect(binding.url('/echo'));
    const serving = (async () => {
      const accepts = Array.from({ length: N }, () => replier.accept(1024));
      await Promise.all(accepts.map(async (a) => { const r = await a; await r.reply(r.payload); }));
    })();
    const replies = await Promise.all(Array.from({ length: N }, (_, i) => requester.request(Buffer.from(String(i)), 1024)));
    await serving;
    const ok = replies.every((r, i) => r.toString() === String(i));
    console.log(ok ? 'ok ' + replies.length : 'mismatch');
    // Nothing is closed: the runtimes, the binding and both endpoints are idle.
  `);
  assert.equal(code, 0, stderr);
  assert.equal(stdout.trim(), 'ok 1000');
});

test('a pending call keeps the process alive until it completes', async () => {
  const { code, stdout, stderr } = await runScript(`
    import weida from 'weida';
    const binding = await new weida.Runtime().bind('127.0.0.1:0', weida.Identity.generate());
    const puller = binding.puller('/sink');
    const pusher = new weida.Runtime().pusher(weida.Trust.byAddress());
    await pusher.connect(binding.url('/sink'));
    puller.recv(1024).then(({ payload }) => console.log('got ' + payload));
    // Sent from a library completion later, with no timer keeping the loop alive.
    pusher.send(Buffer.from('late')).then(() => console.log('sent'));
  `);
  assert.equal(code, 0, stderr);
  assert.deepEqual(stdout.trim().split('\n').sort(), ['got late', 'sent']);
});

test('a pending call keeps its object from collection; a dropped idle one is released', async () => {
  const { code, stdout, stderr } = await runScript(`
    import weida from 'weida';
    import { setImmediate as tick } from 'node:timers/promises';
    const collect = async () => { for (let i = 0; i < 5; i++) { globalThis.gc(); await tick(); } };
    const binding = await new weida.Runtime().bind('127.0.0.1:0', weida.Identity.generate());
    const receiving = binding.puller('/sink').recv(1024); // nothing else references the puller
    const pusher = new weida.Runtime().pusher(weida.Trust.byAddress());
    await pusher.connect(binding.url('/sink'));
    await collect();
    await pusher.send(Buffer.from('kept'));
    console.log((await receiving).payload.toString());
    let before = weida.diagnostics.handlesLive();
    binding.replier('/idle'); // dropped at once: the finalizer closes it
    await collect();
    console.log(weida.diagnostics.handlesLive() < before + 1 ? 'released' : 'leaked');
  `, 12, ['--expose-gc']);
  assert.equal(code, 0, stderr);
  assert.deepEqual(stdout.trim().split('\n'), ['kept', 'released']);
});

test('close() releases every handle', async () => {
  const before = weida.diagnostics.handlesLive();
  const server = new weida.Runtime();
  const client = new weida.Runtime();
  const identity = weida.Identity.generate();
  const trust = weida.Trust.byAddress();
  const binding = await server.bind('127.0.0.1:0', identity);
  const replier = binding.replier('/echo');
  const requester = client.requester(trust);
  await requester.connect(binding.url('/echo'));
  const asking = requester.request(Buffer.from('x'), MIB);
  const request = await replier.accept(MIB);
  await request.reply(request.payload);
  await asking;
  for (const h of [request, replier, requester, trust, identity, binding, server, client]) h.close();
  assert.equal(weida.diagnostics.handlesLive(), before);
  assert.equal(weida.diagnostics.pendingOperations(), 0);
});

test('the JS thread stays free while calls wait', async () => {
  const { binding } = await served();
  const puller = binding.puller('/sink');
  const receiving = puller.recv(10);
  let ticks = 0;
  await new Promise((resolve) => {
    const tick = () => (++ticks < 20 ? setImmediate(tick) : resolve());
    tick();
  });
  assert.equal(ticks, 20);
  puller.close();
  await assert.rejects(receiving, weida.Canceled);
});

test('a worker thread loads its own bridge', async () => {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(`
    const weida = require('weida');
    const { parentPort } = require('node:worker_threads');
    (async () => {
      const binding = await new weida.Runtime().bind('127.0.0.1:0', weida.Identity.generate());
      const replier = binding.replier('/echo');
      const requester = new weida.Runtime().requester(weida.Trust.byAddress());
      await requester.connect(binding.url('/echo'));
      const asking = requester.request(Buffer.from('from a worker'), 1024);
      const r = await replier.accept(1024);
      await r.reply(r.payload);
      parentPort.postMessage((await asking).toString());
    })();
  `, { eval: true });
  const [message] = await Promise.all([
    new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); }),
    new Promise((resolve) => worker.once('exit', resolve)),
  ]);
  assert.equal(message, 'from a worker');
});

test('a worker terminated with calls pending: their late completions are dropped safely', async () => {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(`
    const weida = require('weida');
    const { parentPort } = require('node:worker_threads');
    (async () => {
      const binding = await new weida.Runtime().bind('127.0.0.1:0', weida.Identity.generate());
      const puller = binding.puller('/sink');
      for (let i = 0; i < 8; i++) puller.recv(1024); // pending when the worker dies
      parentPort.postMessage(binding.url('/sink'));
    })();
  `, { eval: true });
  const url = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  await worker.terminate();
  // The worker's runtime lives on in the library: these complete its dead receives.
  const pusher = new weida.Runtime().pusher(byAddress());
  await pusher.connect(url);
  for (let i = 0; i < 8; i++) await pusher.send(Buffer.from(String(i)));
  // Still alive and well here: a round trip on this thread.
  const { binding } = await served();
  const puller = binding.puller('/after');
  const again = new weida.Runtime().pusher(byAddress());
  await again.connect(binding.url('/after'));
  await again.send(Buffer.from('after'));
  assert.equal((await puller.recv(MIB)).payload.toString(), 'after');
});
