// RADIO/DISH over QUIC: segments and datagram segments reach a dish that
// joined, with their topic and number; an oversize datagram is counted,
// never sent as a stream; bad terms are refused before anything is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, until } from './support.mjs';

/** {binding, radio, dish}: a dish joined to "cam.#" with terms, datagrams on both ends unless told. */
async function radioAndDish({ datagrams = true, ...terms } = {}) {
  const server = new weida.Runtime({ datagrams });
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  const radio = binding.radio('/cam');
  const dish = new weida.Runtime({ datagrams }).dish(byAddress());
  await dish.connect(binding.url('/cam'));
  await dish.join('cam.#', terms);
  await until(() => radio.dishCount() === 1, 'the radio to apply the join');
  return { binding, radio, dish };
}

test('a segment arrives whole with its topic, number and layer', async () => {
  const { binding, radio, dish } = await radioAndDish({ maxAge: 5 });
  const segment = radio.segment('cam.front', { maxAge: 5, priority: 1 });
  assert.equal(segment.number(), 0);
  assert.equal(segment.write(Buffer.from('key')), 1);
  assert.equal(segment.write(new Uint8Array(Buffer.from('frame'))), 1);
  assert.equal(segment.finish(), 1);
  assert.throws(() => segment.finish(), weida.NoReply);
  const got = await dish.recv(MIB);
  assert.equal(got.kind, 'segment');
  assert.equal(got.payload.toString(), 'keyframe');
  assert.deepEqual([got.meta.topic, got.meta.segment, got.meta.layer], ['cam.front', 0, 0]);
  const next = radio.segment('cam.front');
  next.write(Buffer.from('next'));
  next.finish();
  const second = await dish.recv(MIB);
  assert.deepEqual([second.payload.toString(), second.meta.segment], ['next', 1]);
  binding.close();
});

test('a datagram arrives as its own kind', async () => {
  const { binding, radio, dish } = await radioAndDish();
  assert.equal(radio.datagram('cam.audio', Buffer.from('beep')), 1);
  const got = await dish.recv(MIB);
  assert.deepEqual({ ...got, payload: got.payload.toString() },
    { kind: 'datagram', topic: 'cam.audio', segment: 0, payload: 'beep' });
  binding.close();
});

test('an oversize datagram is counted for the dish, never streamed', async () => {
  const { binding, radio } = await radioAndDish();
  assert.equal(radio.datagram('cam.audio', Buffer.alloc(4000)), 0);
  const drops = radio.dishDrops();
  assert.equal(drops.length, 1);
  assert.ok(drops[0] instanceof weida.DishDrops);
  assert.deepEqual([drops[0].tooLarge, drops[0].noDatagrams, drops[0].superseded], [1, 0, 0]);
  assert.equal(drops[0].noParked, 0); // only a unix dish parks a reverse connection
  assert.equal(drops[0].peer, null); // an anonymous dish, told apart by its address
  assert.ok(drops[0].addr.length > 0);
  assert.equal(radio.dropped(), 1);
  assert.equal(radio.path(), '/cam');
  binding.close();
});

test('a dish without datagrams loses them, counted', async () => {
  const { binding, radio } = await radioAndDish({ datagrams: false });
  assert.equal(radio.datagram('cam.audio', Buffer.from('beep')), 0);
  assert.equal(radio.dishDrops()[0].noDatagrams, 1);
  binding.close();
});

test('layers above the dish cap are never sent', async () => {
  const { binding, radio, dish } = await radioAndDish({ maxLayer: 0 });
  const segment = radio.segment('cam.front');
  assert.equal(segment.writeLayer(1, Buffer.from('enhancement')), 0);
  assert.equal(segment.write(Buffer.from('base')), 1);
  segment.finishLayer(0);
  assert.throws(() => segment.write(Buffer.from('more')), weida.NoReply);
  segment.finish();
  const got = await dish.recv(MIB);
  assert.deepEqual([got.kind, got.payload.toString(), got.meta.layer], ['segment', 'base', 0]);
  binding.close();
});

test('bad terms are refused before anything is sent', async () => {
  const { binding, radio, dish } = await radioAndDish();
  await assert.rejects(dish.join('cam.#', { maxLayer: 16 }), weida.LimitExceeded);
  await assert.rejects(dish.join('a#'), weida.Protocol);
  await assert.rejects(dish.join('cam.#', { maxLayer: -1 }), RangeError);
  await assert.rejects(dish.join('cam.#', { maxAge: -1 }), RangeError);
  assert.throws(() => radio.segment('cam.front', { priority: 2 ** 15 }), RangeError);
  const segment = radio.segment('cam.front');
  assert.throws(() => segment.writeLayer(16, Buffer.from('x')), weida.LimitExceeded);
  assert.throws(() => segment.write('text'), TypeError);
  assert.throws(() => radio.datagram('cam.audio', 'text'), TypeError);
  binding.close();
});

test('the ceiling discards a datagram and the dish goes on', async () => {
  const { binding, radio, dish } = await radioAndDish();
  radio.datagram('cam.audio', Buffer.from('twelve bytes'));
  await assert.rejects(dish.recv(4), weida.LimitExceeded);
  radio.datagram('cam.audio', Buffer.from('ok'));
  const got = await dish.recv(4);
  assert.deepEqual([got.kind, got.segment, got.payload.toString()], ['datagram', 1, 'ok']);
  binding.close();
});

test('leave drops the join; closing wakes a pending recv with Canceled', async () => {
  const { binding, radio, dish } = await radioAndDish();
  await dish.leave('cam.#');
  await dish.leave('never.joined'); // not an error
  await until(() => radio.dishCount() === 0, 'the radio to drop the join');
  assert.equal(dish.peerCount(), 1);
  const pending = dish.recv(MIB);
  dish.close();
  await assert.rejects(pending, weida.Canceled);
  assert.throws(() => binding.radio('/cam'), weida.AlreadyRegistered);
  binding.close();
});
