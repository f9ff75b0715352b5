// The error classes: one per library error kind, each with its C code.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import weida from 'weida';
import { headerPath } from './support.mjs';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('weida'));
const { CODES, KINDS: TABLE, LEVELS, REPORT_MODES } = require(join(root, 'lib', 'abi.js'));
const native = require(join(root, 'lib', 'native.js'));
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

test('lib/abi.js is the table build/gen-bindings-tables.py writes from weida.h', { skip: HEADER === null && NO_HEADER }, () => {
  // The installed package's table, regenerated from the checkout's header by
  // the checkout's generator: a code added to the header and not to the
  // table fails here.
  const generator = join(dirname(HEADER), '..', 'build', 'gen-bindings-tables.py');
  const expected = execFileSync('python3', [generator, '--print', 'node', '--header', HEADER], { encoding: 'utf8' });
  assert.equal(readFileSync(join(root, 'lib', 'abi.js'), 'utf8'), expected,
    'lib/abi.js is stale: run build/gen-bindings-tables.py');
});

test('every code the library names is in the table, and the exports are the table\'s', () => {
  // Read from the library, header or not: weida_strerror names each code
  // it knows and says "WEIDA_E?" for any other.
  const named = {};
  for (let code = 0; code < 1024; code++) {
    const name = native.strerror(code).split(':')[0];
    if (name !== 'WEIDA_E?') named[name] = code;
  }
  assert.deepEqual(named, { ...CODES });
  assert.deepEqual(TABLE.map(([name, code]) => [name, code]), KINDS.map((name, i) => [name, i + 1]));
  for (const [name, value] of Object.entries({ ...LEVELS, ...REPORT_MODES })) assert.equal(weida[name], value, name);
  assert.deepEqual([weida.TRANSPORT_RECEIPT, weida.PROCESSED, weida.APPLICATION_FLOOR, weida.FINAL_ONLY], [1, 5, 16, 1]);
});

test('library failures arrive as their class, with the library\'s sentence', async () => {
  assert.throws(() => weida.Trust.pin('nope'), (e) => e instanceof weida.InvalidFingerprint && e.errno === 4 && e.message.length > 0);
  const runtime = new weida.Runtime();
  await assert.rejects(runtime.bind('not an address', weida.Identity.generate()), weida.InvalidAddress);
  const binding = await runtime.bind('127.0.0.1:0', weida.Identity.generate());
  await assert.rejects(runtime.bind(binding.localAddr(), weida.Identity.generate()), weida.AddressInUse);
  await assert.rejects(runtime.requester(weida.Trust.byAddress()).request(Buffer.from('x'), 1), weida.NotConnected);
});
