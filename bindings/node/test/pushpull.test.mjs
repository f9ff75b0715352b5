// Push/Pull and endpoint lifetime, after upstream's test_asyncio.py.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, pushPull, served } from './support.mjs';

test('a push reaches the puller with its meta', async () => {
  const { puller, pusher } = await pushPull();
  await pusher.send(Buffer.from('work'));
  const { payload, meta } = await puller.recv(MIB);
  assert.equal(payload.toString(), 'work');
  assert.ok(meta instanceof weida.IncomingMeta);
  assert.equal(meta.endpoint, '/sink');
  assert.equal(meta.peer, null);
  assert.deepEqual(meta.report, []);
  assert.equal(pusher.peerCount(), 1);
  assert.equal(pusher.dropped(), 0);
  assert.equal(puller.path(), '/sink');
});

test('a message above the ceiling is LimitExceeded and the next one still arrives', async () => {
  const { puller, pusher } = await pushPull();
  await pusher.send(Buffer.alloc(100));
  await assert.rejects(puller.recv(10), weida.LimitExceeded);
  await pusher.send(Buffer.from('small'));
  assert.equal((await puller.recv(10)).payload.toString(), 'small');
});

test('messages are readable with for await until the puller is closed', async () => {
  const { puller, pusher } = await pushPull();
  for (let i = 0; i < 5; i++) await pusher.send(Buffer.from(String(i)));
  const got = [];
  for await (const { payload, meta } of puller.messages(MIB)) {
    assert.equal(meta.endpoint, '/sink');
    got.push(Number(payload));
    if (got.length === 5) puller.close();
  }
  assert.deepEqual(got.sort(), [0, 1, 2, 3, 4]);
});

test('concurrent receives each take one message', async () => {
  const { puller, pusher } = await pushPull();
  const receiving = Array.from({ length: 50 }, () => puller.recv(MIB));
  for (let i = 0; i < 50; i++) await pusher.send(Buffer.from(String(i)));
  const got = (await Promise.all(receiving)).map(({ payload }) => Number(payload));
  assert.deepEqual(got.sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  assert.equal(weida.diagnostics.pendingOperations(), 0);
});

test('closing an endpoint wakes its calls with Canceled; later calls say the handle is closed', async () => {
  const { binding } = await served();
  const puller = binding.puller('/sink');
  const receiving = puller.recv(10);
  puller.close();
  assert.ok(puller.closed);
  await assert.rejects(receiving, weida.Canceled);
  await assert.rejects(puller.recv(10), (e) => e instanceof weida.RuntimeFailure && e.code === 100 && e.codeName === 'WEIDA_EBADHANDLE');
  assert.throws(() => puller.path(), weida.RuntimeFailure);
  puller.close(); // idempotent
});

test('a streamed transfer read in pieces, also with for await', async () => {
  const { puller, pusher } = await pushPull();
  const stream = await pusher.open();
  const parts = Array.from({ length: 5 }, (_, i) => Buffer.alloc(3000, i));
  for (const part of parts) await stream.write(part);
  const finishing = stream.finish();
  const { stream: incoming, meta } = await puller.recvStream();
  assert.equal(meta.endpoint, '/sink');
  const pieces = [];
  for await (const piece of incoming.chunks(1000)) {
    assert.ok(piece.length <= 1000);
    pieces.push(piece);
  }
  await finishing;
  assert.deepEqual(Buffer.concat(pieces), Buffer.concat(parts));
  assert.ok(pieces.length >= 15);
  assert.equal((await incoming.read(1000)).length, 0); // the end stays the end
  await assert.rejects(stream.finish(), weida.NoReply);
});

test('collect above the ceiling is LimitExceeded', async () => {
  const { puller, pusher } = await pushPull();
  await pusher.send(Buffer.alloc(100));
  const { stream } = await puller.recvStream();
  await assert.rejects(stream.collect(10), weida.LimitExceeded);
});

test('a canceled stream is Canceled for the reader', async () => {
  const { puller, pusher } = await pushPull();
  const stream = await pusher.open();
  await stream.write(Buffer.from('partial'));
  const { stream: incoming } = await puller.recvStream();
  await stream.cancel();
  await assert.rejects(async () => {
    while ((await incoming.read(100)).length > 0);
  }, weida.Canceled);
});
