// Guarantee sets from Node: new Runtime({ ordering, dedupWindow,
// acknowledgement, require }) reaches the library's, over QUIC.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { byAddress } from './support.mjs';

const PUSHES = 1000;

test('1,000 pushes under reassembly arrive in order, numbered, nothing missed', async () => {
  const server = new weida.Runtime({ ordering: 'reassemble' });
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  const puller = binding.puller('/ordered');
  const pusher = new weida.Runtime({ ordering: 'reassemble' }).pusher(byAddress());
  await pusher.connect(binding.url('/ordered'));
  // One burst: the receiver grants no more streams than its reorder hold
  // can wait behind, so the sender cannot overrun it.
  const sender = (async () => {
    for (let i = 0; i < PUSHES; i++) await pusher.send(Buffer.from(String(i)));
  })();
  const got = [];
  for (let i = 0; i < PUSHES; i++) {
    const { payload, meta } = await puller.recv(64);
    got.push([Number(payload), meta.sequence, meta.missed]);
  }
  await sender;
  assert.deepEqual(got, Array.from({ length: PUSHES }, (_, i) => [i, i, null]));
  assert.equal(server.suppressedDuplicates(), 0);
});

test('requiring what a core peer lacks fails with Negotiation naming the dimension', async () => {
  const server = new weida.Runtime();
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  binding.puller('/core');
  const pusher = new weida.Runtime({ ordering: 'reassemble' }).pusher(byAddress());
  await assert.rejects(pusher.connect(binding.url('/core')),
    (e) => e instanceof weida.Negotiation && e.code === 9 && /ordering/.test(e.message));
});

test('offered but not required connects to a core peer, unnumbered', async () => {
  const server = new weida.Runtime();
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  const puller = binding.puller('/core');
  const pusher = new weida.Runtime({ ordering: 'reassemble', dedupWindow: 5, require: [] }).pusher(byAddress());
  await pusher.connect(binding.url('/core'));
  await pusher.send(Buffer.from('plain'));
  const { payload, meta } = await puller.recv(64);
  assert.equal(payload.toString(), 'plain');
  assert.equal(meta.sequence, null);
});

test('an unknown or contradictory set is refused at creation, naming the dimension', () => {
  const cases = [
    [{ ordering: 'sorted' }, RangeError, /ordering/],
    [{ ordering: 2 }, TypeError, /ordering/],
    [{ dedupWindow: -1 }, RangeError, /dedupWindow/],
    [{ dedupWindow: Infinity }, RangeError, /dedupWindow/],
    [{ require: ['ordering'] }, RangeError, /ordering/],
    [{ ordering: 'detect', require: ['latency'] }, RangeError, /latency/],
    [{ ordering: 'detect', require: 'ordering' }, TypeError, /require/],
    // A well-formed level this build cannot honour is Unsupported.
    [{ acknowledgement: weida.PROCESSED }, weida.Unsupported, /acknowledgement/],
    [{ acknowledgement: 9 }, weida.RuntimeFailure, /acknowledgement/],
    [{ acknowledgement: weida.ACCEPTED, require: [] }, weida.RuntimeFailure, /acknowledgement/],
  ];
  for (const [options, cls, dimension] of cases) {
    assert.throws(() => new weida.Runtime(options), (e) => e instanceof cls && dimension.test(e.message),
      JSON.stringify(options));
  }
});
