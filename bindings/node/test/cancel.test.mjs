// AbortSignal: a Promise abandoned by the caller cancels the library
// operation (resetting its streams so the peer learns), never the endpoint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, pushPull, reqRep, until } from './support.mjs';

const isAbort = (e) => e.name === 'AbortError' || e.name === 'TimeoutError';

test('an abort rejects with the signal\'s reason and cancels the operation, not the endpoint', async () => {
  const { puller, pusher } = await pushPull();
  const controller = new AbortController();
  const receiving = puller.recv(10, { signal: controller.signal });
  controller.abort();
  await assert.rejects(receiving, (e) => e === controller.signal.reason);
  await until(() => weida.diagnostics.pendingOperations() === 0, "the canceled recv's completion");
  await pusher.send(Buffer.from('after'));
  assert.equal((await puller.recv(10)).payload.toString(), 'after'); // the canceled recv took nothing
});

test('AbortSignal.timeout works as a per-call timeout', async () => {
  const { puller } = await pushPull();
  await assert.rejects(puller.recv(10, { signal: AbortSignal.timeout(50) }), isAbort);
  assert.ok(!puller.closed);
});

test('an already aborted signal starts nothing', async () => {
  const { puller, pusher } = await pushPull();
  const reason = new Error('not now');
  await assert.rejects(pusher.send(Buffer.from('never'), { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await pusher.send(Buffer.from('only'));
  assert.equal((await puller.recv(10)).payload.toString(), 'only');
});

test('an aborted read resets the stream and the sender learns', async () => {
  const { puller, pusher } = await pushPull();
  const stream = await pusher.open();
  await stream.write(Buffer.from('first part'));
  const { stream: incoming, meta } = await puller.recvStream();
  assert.equal(meta.endpoint, '/sink');
  assert.equal((await incoming.read(100)).toString(), 'first part');
  await assert.rejects(incoming.read(100, { signal: AbortSignal.timeout(50) }), isAbort); // the sender is silent
  await assert.rejects(async () => {
    for (let i = 0; i < 1000; i++) await stream.write(Buffer.alloc(64 << 10)); // the refusal arrives within a few writes
    await stream.finish();
  }, (e) => e instanceof weida.Rejected || e instanceof weida.Canceled);
});

test('an aborted request resets its exchange: the replier sees the asker gave up', async () => {
  const { replier, requester } = await reqRep();
  const controller = new AbortController();
  const asking = requester.request(Buffer.from('slow'), MIB, { signal: controller.signal });
  const request = await replier.accept(MIB);
  controller.abort();
  await assert.rejects(asking, isAbort);
  // The asker's stream was reset: answering now fails, or is lost, but never reaches anyone.
  await request.reply(Buffer.from('too late')).catch((e) => assert.ok(e instanceof weida.WeidaError));
  assert.equal((await Promise.all([requester.request(Buffer.from('next'), MIB), replier.accept(MIB).then(async (r) => {
    await r.reply(r.payload);
  })]))[0].toString(), 'next');
});

test('aborted operations leak no handles', async () => {
  const { puller, pusher } = await pushPull();
  const before = weida.diagnostics.handlesLive();
  for (let i = 0; i < 20; i++) { // a message may complete a recv that is being aborted
    const controller = new AbortController();
    const receiving = puller.recv(10, { signal: controller.signal });
    await pusher.send(Buffer.from(String(i)));
    controller.abort();
    await receiving.catch(() => {});
  }
  await until(() => weida.diagnostics.pendingOperations() === 0, 'every completion');
  // Messages the aborted receives did not take stay queued in the library: not handles.
  assert.equal(weida.diagnostics.handlesLive(), before);
});

test('a bad signal is a TypeError', async () => {
  const { puller } = await pushPull();
  await assert.rejects(puller.recv(10, { signal: 'soon' }), TypeError);
  await assert.rejects(puller.recv(10, 5), TypeError);
});
