// Bad input is a clear JavaScript error naming what is wrong.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { byAddress, served } from './support.mjs';

test('a string where bytes are required is a TypeError, everywhere', async () => {
  const { binding, client } = await served();
  const requester = client.requester(byAddress());
  const pusher = client.pusher(byAddress());
  const paired = client.pair(byAddress());
  const surveyor = client.surveyor(byAddress());
  const bus = binding.bus('/bus', byAddress());
  const publisher = binding.publisher('/news');
  const bytesMessage = /must be a Buffer or Uint8Array, not string/;
  for (const call of [
    () => requester.request('text', 10),
    () => pusher.send('text'),
    () => paired.send('text'),
    () => surveyor.survey('text', 0.1, 10),
    () => bus.send('text'),
    () => publisher.open('t').writeWithin('text', 1),
    () => publisher.open('t').writeNow('text'),
  ]) {
    await assert.rejects(call(), (e) => e instanceof TypeError && bytesMessage.test(e.message), call.toString());
  }
  assert.throws(() => publisher.publish('t', 'text'), TypeError);
  const stream = await pusher.open().catch(() => null); // not connected: open may fail
  if (stream) await assert.rejects(stream.write('text'), TypeError);
});

test('other payload kinds: any ArrayBufferView or ArrayBuffer is bytes; a number is not', async () => {
  const { client } = await served();
  const pusher = client.pusher(byAddress());
  await assert.rejects(pusher.send(42), (e) => e instanceof TypeError && /not number/.test(e.message));
  await assert.rejects(pusher.send(null), TypeError);
});

test('ceilings are non-negative integers (Number or BigInt), with no default', async () => {
  const { binding } = await served();
  const puller = binding.puller('/sink');
  await assert.rejects(puller.recv(), (e) => e instanceof TypeError && /maxBytes/.test(e.message));
  await assert.rejects(puller.recv('10'), TypeError);
  await assert.rejects(puller.recv(-1), RangeError);
  await assert.rejects(puller.recv(1.5), RangeError);
  await assert.rejects(puller.recv(-1n), RangeError);
  const controller = new AbortController();
  const pending = puller.recv(10n, { signal: controller.signal }); // BigInt is fine
  controller.abort();
  await assert.rejects(pending, (e) => e.name === 'AbortError');
});

test('text arguments are strings without NUL', async () => {
  const { binding, client } = await served();
  assert.throws(() => binding.replier(42), TypeError);
  assert.throws(() => binding.replier('/a\0b'), RangeError);
  assert.throws(() => binding.replier('no-slash'), weida.InvalidEndpointPath);
  binding.replier('/taken');
  assert.throws(() => binding.replier('/taken'), weida.AlreadyRegistered);
  await assert.rejects(client.requester(byAddress()).connect(42), TypeError);
  await assert.rejects(client.requester(byAddress()).connect('not a url'), weida.InvalidAddress);
});

test('objects of the wrong class are TypeErrors', async () => {
  const { binding, server } = await served();
  assert.throws(() => server.requester('trust'), /trust must be a weida Trust/);
  assert.throws(() => binding.bus('/b', weida.Identity.generate()), TypeError);
  await assert.rejects(server.bind('127.0.0.1:0', weida.Trust.byAddress()), /identity must be a weida Identity/);
  assert.throws(() => new weida.Runtime({ workerThreads: 0 }), RangeError);
  assert.throws(() => new weida.Runtime({ workerThreads: 'two' }), TypeError);
});

test('values: fingerprints, pins, PEM files', async () => {
  const id = weida.Identity.generate();
  assert.match(id.fingerprint(), /^sha256:[0-9a-f]{64}$/);
  assert.ok(weida.Trust.pin(id.fingerprint()) instanceof weida.Trust);
  assert.throws(() => weida.Trust.pin('sha256:nothex'), weida.InvalidFingerprint);
  const named = weida.Identity.generateFor(['localhost', '127.0.0.1']);
  assert.notEqual(named.fingerprint(), id.fingerprint());
  assert.throws(() => weida.Identity.generateFor('localhost'), TypeError);
  const missing = weida.Identity.fromPemFile('/nonexistent/weida.pem'); // read lazily
  assert.throws(() => missing.fingerprint(), (e) => e instanceof weida.WeidaError && e.message.includes('/nonexistent/weida.pem'));
  assert.throws(() => weida.Trust.anchorFile('/nonexistent/ca.pem'), weida.WeidaError);
  assert.throws(() => weida.Trust.pinFile('/nonexistent/members.keys'), weida.WeidaError);
});

test('a closed binding stops serving; binding facts read back', async () => {
  const { binding, client } = await served();
  assert.match(binding.localAddr(), /^127\.0\.0\.1:\d+$/);
  assert.match(binding.url('/x'), /^weida:\/\/sha256:[0-9a-f]{64}@127\.0\.0\.1:\d+\/x$/);
  const url = binding.url('/echo');
  binding.replier('/echo');
  binding.close();
  // Nobody answers at that address any more: the handshake fails (or is abandoned here).
  await assert.rejects(client.requester(byAddress()).connect(url, { signal: AbortSignal.timeout(500) }),
    (e) => e instanceof weida.WeidaError || e.name === 'TimeoutError');
});
