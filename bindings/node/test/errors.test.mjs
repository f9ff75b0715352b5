// The error classes: one per library error kind, each with its C code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import weida from 'weida';
import { headerPath } from './support.mjs';

const HEADER = headerPath();
const NO_HEADER = 'no include/weida.h above the tests and WEIDA_HEADER unset: not run from a checkout';

const KINDS = [
  'RuntimeFailure', 'InvalidAddress', 'InvalidEndpointPath', 'InvalidFingerprint', 'AlreadyRegistered',
  'AddressInUse', 'NotConnected', 'ConnectionLost', 'Negotiation', 'Protocol', 'Rejected', 'UnknownEndpoint',
  'Unsupported', 'NoParkedConnection', 'NoReply', 'Canceled', 'Expired', 'Indeterminate', 'LimitExceeded',
  'DatagramsUnavailable', 'TooLarge', 'Tls', 'Untrusted', 'UntrustedPrincipal', 'Io', 'Transport',
];

test('twenty-six classes under WeidaError, under Error', () => {
  for (const name of KINDS) {
    const cls = weida[name];
    assert.equal(typeof cls, 'function', name);
    assert.equal(cls.name, name);
    assert.ok(cls.prototype instanceof weida.WeidaError, name);
  }
  assert.ok(weida.WeidaError.prototype instanceof Error);
  const names = Object.keys(weida).filter((k) => weida[k]?.prototype instanceof weida.WeidaError);
  assert.deepEqual(names.sort(), [...KINDS].sort());
});

test('each class carries its C code, in weida.h order', () => {
  KINDS.forEach((name, i) => {
    const error = new weida[name]('a sentence');
    assert.equal(error.errno, i + 1);
    assert.match(error.codeName, /^WEIDA_E[A-Z_]+$/);
    assert.equal(error.code, error.errno);
    assert.equal(error.message, 'a sentence');
    assert.equal(error.name, name);
    assert.equal(error.kind, name === 'RuntimeFailure' ? 'Runtime' : name);
  });
  assert.equal(new weida.LimitExceeded('x').codeName, 'WEIDA_ELIMIT');
  assert.equal(new weida.LimitExceeded('x').code, 19);
  assert.equal(new weida.Untrusted('x').codeName, 'WEIDA_EUNTRUSTED');
  assert.equal(new weida.Untrusted('x').code, 23);
});

test('Indeterminate is a sibling of ConnectionLost, never a subclass', () => {
  assert.ok(!(new weida.Indeterminate('x') instanceof weida.ConnectionLost));
  assert.ok(!(new weida.ConnectionLost('x') instanceof weida.Indeterminate));
});

test('the JavaScript table matches the C code table in weida.h', { skip: HEADER === null && NO_HEADER }, () => {
  const header = readFileSync(HEADER, 'utf8');
  const codes = [...header.matchAll(/^\s*(WEIDA_E[A-Z_]+) = (\d+),?\s*\/\*/gm)]
    .map(([, name, n]) => [name, Number(n)])
    .filter(([, n]) => n >= 1 && n <= 26);
  assert.equal(codes.length, 26);
  for (const [name, n] of codes) {
    assert.equal(new weida[KINDS[n - 1]]('x').codeName, name);
    assert.equal(new weida[KINDS[n - 1]]('x').code, n);
  }
});

test('library failures arrive as their class, with the library\'s sentence', async () => {
  assert.throws(() => weida.Trust.pin('nope'), (e) => e instanceof weida.InvalidFingerprint && e.errno === 4 && e.message.length > 0);
  const runtime = new weida.Runtime();
  await assert.rejects(runtime.bind('not an address', weida.Identity.generate()), weida.InvalidAddress);
  const binding = await runtime.bind('127.0.0.1:0', weida.Identity.generate());
  await assert.rejects(runtime.bind(binding.localAddr(), weida.Identity.generate()), weida.AddressInUse);
  await assert.rejects(runtime.requester(weida.Trust.byAddress()).request(Buffer.from('x'), 1), weida.NotConnected);
});
