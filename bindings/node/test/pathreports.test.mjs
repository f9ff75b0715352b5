// Path reports (PROTOCOL.md §8.9): `new Runtime({ pathReport: true })` on
// both ends fills connectionStats()[i].remote over QUIC with the peer's
// record; nothing over inproc, nor with one end left off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, until } from './support.mjs';

const measured = ['rtt', 'minRtt', 'congestionWindow', 'lostPackets', 'sentPackets', 'txBytes', 'rxBytes'];
const unmeasured = ['currentMtu', 'congestionEvents', 'txDatagrams', 'rxDatagrams'];

test('the peer record arrives over QUIC with what quic-go measures and nothing else', async () => {
  const server = new weida.Runtime({ pathReport: true });
  const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
  const puller = binding.puller('/p');
  const pusher = new weida.Runtime({ pathReport: true }).pusher(byAddress());
  await pusher.connect(binding.url('/p'));
  // The first record is sent right after connecting: one round trip.
  await until(() => pusher.connectionStats()[0].remote !== null, "the peer's path record", 15);
  const { remote } = pusher.connectionStats()[0];
  assert.ok(remote instanceof weida.RemoteStats);
  assert.ok(Object.isFrozen(remote));
  for (const name of measured) assert.equal(typeof remote[name], 'number', `${name}: ${JSON.stringify(remote)}`);
  for (const name of unmeasured) assert.equal(remote[name], null, `${name}: ${JSON.stringify(remote)}`);
  assert.ok(remote.rtt > 0 && remote.txBytes > 0 && remote.age >= 0, JSON.stringify(remote));

  // A dialler with path reports off gets none: its push rides a later
  // stream than any REPORT the server could have opened.
  const off = new weida.Runtime().pusher(byAddress());
  await off.connect(binding.url('/p'));
  await off.send(Buffer.from('y'));
  assert.equal((await puller.recv(MIB)).payload.toString(), 'y');
  const [stats] = off.connectionStats();
  assert.deepEqual([stats.live, stats.remote], [true, null]);
  pusher.close();
  off.close();
  binding.close();
});

test('no peer record over inproc', async () => {
  const binding = new weida.Runtime({ pathReport: true }).bindInproc(`node-pathreports-${process.pid}`);
  const puller = binding.puller('/p');
  const pusher = new weida.Runtime({ pathReport: true }).pusher(byAddress());
  await pusher.connect(binding.url('/p'));
  await pusher.send(Buffer.from('z'));
  await puller.recv(MIB);
  const [stats] = pusher.connectionStats();
  assert.deepEqual([stats.live, stats.transport, stats.remote], [true, null, null]);
  pusher.close();
  binding.close();
});
