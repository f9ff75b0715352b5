// The library's log lines through weida.onLog: connections opened and
// closed, a failed negotiation naming the dimension, no line per message;
// removed, never called again; a callback that throws is reported once and
// dropped while the process goes on.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import weida from 'weida';
import { byAddress, served, until } from './support.mjs';

afterEach(() => weida.onLog(null));

/** Installs a collecting callback at minLevel; returns the lines it keeps. */
function collect(minLevel) {
  const lines = [];
  weida.onLog((level, message, attrs) => lines.push({ level, message, attrs }), minLevel);
  return lines;
}

function find(lines, message, attrs) {
  return lines.find((l) => l.message === message && Object.entries(attrs).every(([k, v]) => l.attrs[k] === v));
}

async function waitFor(lines, message, attrs) {
  await until(() => find(lines, message, attrs) !== undefined, `a ${message} line with ${JSON.stringify(attrs)}`);
  return find(lines, message, attrs);
}

test('connections opened and closed reach the callback, and no line per message', async () => {
  const lines = collect('info');
  const { binding, client } = await served();
  const puller = binding.puller('/logs');
  const pusher = client.pusher(byAddress());
  await pusher.connect(binding.url('/logs'));
  for (let i = 0; i < 20; i++) {
    await pusher.send(Buffer.from(`m${i}`));
    await puller.recv(64);
  }
  const dialled = await waitFor(lines, 'weida: connection opened', { side: 'dialled', path: '/logs' });
  assert.equal(dialled.level, 'info');
  assert.equal(dialled.attrs.peer, binding.fingerprint());
  assert.match(dialled.attrs.remote, /^127\.0\.0\.1:\d+$/);
  const accepted = await waitFor(lines, 'weida: connection opened', { side: 'accepted', peer: 'anonymous' });
  pusher.close();
  const closed = await waitFor(lines, 'weida: connection closed', { side: 'accepted', remote: accepted.attrs.remote });
  assert.match(closed.attrs.reason, /the peer closed/);
  assert.ok(lines.length <= 4, `20 pushes logged nothing of their own at info: ${JSON.stringify(lines)}`);
  puller.close();
});

test('a failed negotiation is a warning naming the dimension, on both sides', async () => {
  const lines = collect('warn');
  const { binding } = await served();
  const puller = binding.puller('/logs');
  const pusher = new weida.Runtime({ ordering: 'reassemble' }).pusher(byAddress());
  await assert.rejects(pusher.connect(binding.url('/logs')), (e) => e instanceof weida.Negotiation);
  for (const side of ['dialled', 'accepted']) {
    const l = await waitFor(lines, 'weida: negotiation failed', { side, dimension: 'ordering' });
    assert.equal(l.level, 'warn');
  }
  assert.ok(lines.every((l) => l.level === 'warn' || l.level === 'error'), JSON.stringify(lines));
  pusher.close();
  puller.close();
});

test('a removed callback is never called again', async () => {
  let calls = 0;
  weida.onLog(() => calls++, 'debug');
  weida.onLog(null);
  const { binding, client } = await served();
  const puller = binding.puller('/logs');
  const pusher = client.pusher(byAddress());
  await pusher.connect(binding.url('/logs'));
  await pusher.send(Buffer.from('x'));
  await puller.recv(64);
  pusher.close();
  puller.close();
  // A fresh callback sees the next connection: lines are flowing again, and
  // the removed one still saw none of them.
  const lines = collect('info');
  const later = client.pusher(byAddress());
  await later.connect(binding.url('/later'));
  await waitFor(lines, 'weida: connection opened', { side: 'dialled', path: '/later' });
  assert.equal(calls, 0);
  later.close();
});

test('a callback that throws is reported once and dropped; the process goes on', async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    let calls = 0;
    weida.onLog(() => {
      calls++;
      throw new Error('this callback is broken');
    }, 'info');
    const { binding, client } = await served();
    const puller = binding.puller('/logs');
    const pusher = client.pusher(byAddress());
    await pusher.connect(binding.url('/logs'));
    await until(() => warnings.some((w) => w.name === 'WeidaLogWarning'), 'the warning');
    const later = client.pusher(byAddress());
    await later.connect(binding.url('/logs'));
    await later.send(Buffer.from('still working'));
    assert.equal((await puller.recv(64)).payload.toString(), 'still working');
    later.close();
    pusher.close();
    await until(() => weida.diagnostics.pendingOperations() === 0, 'the closes');
    assert.equal(calls, 1, 'dropped at its first throw');
    const ours = warnings.filter((w) => w.name === 'WeidaLogWarning');
    assert.equal(ours.length, 1);
    assert.match(ours[0].message, /this callback is broken/);
    puller.close();
  } finally {
    process.off('warning', onWarning);
  }
});

test('onLog refuses what is not a function or a level', () => {
  assert.throws(() => weida.onLog('nope'), TypeError);
  assert.throws(() => weida.onLog(() => {}, 'verbose'), TypeError);
});
