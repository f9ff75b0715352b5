// The package as an ES module: named imports, the default export, and the
// same values as require('weida'); the types under tsc (nodenext).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import * as namespace from 'weida';
import weida, { ACCEPTED, Identity, Runtime, Negotiation } from 'weida';

const require = createRequire(import.meta.url);

test('named imports are the CommonJS values, every one of them', () => {
  const cjs = require('weida');
  assert.equal(weida, cjs);
  assert.equal(Runtime, cjs.Runtime);
  assert.equal(ACCEPTED, 2);
  assert.equal(Identity, cjs.Identity);
  assert.equal(Negotiation, cjs.Negotiation);
  const named = Object.keys(namespace).filter((k) => k !== 'default').sort();
  assert.deepEqual(named, Object.keys(cjs).sort());
  for (const k of named) assert.equal(namespace[k], cjs[k], k);
});

test('an ES module program runs from named imports', async () => {
  const server = new Runtime();
  const binding = await server.bind('127.0.0.1:0', Identity.generate());
  const replier = binding.replier('/esm');
  const requester = new Runtime().requester(weida.Trust.byAddress());
  await requester.connect(binding.url('/esm'));
  const asking = requester.request(Buffer.from('hi'), 64);
  const request = await replier.accept(64);
  await request.reply(request.payload);
  assert.equal((await asking).toString(), 'hi');
});

// tsc is installed from npm's cache for this test only (--offline: no
// network); without it in the cache the check is skipped, saying why.
function installTypescript(dir) {
  try {
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', 'typescript@5'],
      { cwd: dir, stdio: 'pipe', timeout: 60000 });
    return '';
  } catch (e) {
    return `${e.stderr ?? ''}${e.message}`.trim().split('\n').slice(-2).join(' ');
  }
}

test('tsc (module and moduleResolution nodenext) accepts named and default imports', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'weida-tsc-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "name": "tsc-check", "version": "1.0.0", "private": true, "type": "module" }\n');
    const why = installTypescript(dir);
    if (why) {
      t.skip(`typescript is not in npm's cache (offline): ${why}`);
      return;
    }
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    symlinkSync(dirname(require.resolve('weida/package.json')), join(dir, 'node_modules', 'weida'), 'dir');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      // No @types/node (not needed offline): index.d.ts's Buffer goes
      // unresolved inside the declaration file, which skipLibCheck leaves
      // alone; the names and shapes this program uses are still checked.
      compilerOptions: {
        module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: [], skipLibCheck: true,
      },
      files: ['main.ts', 'main.cts'],
    }));
    writeFileSync(join(dir, 'main.ts'), [
      "import weida, { Runtime, ACCEPTED, Negotiation } from 'weida';",
      "const rt: Runtime = new Runtime({ ordering: 'reassemble', require: ['ordering'] });",
      'const level: 2 = ACCEPTED;',
      'const n: number = rt.suppressedDuplicates() + weida.PROCESSED + level;',
      "const e: number = new Negotiation('x').code;",
      'export { n, e };',
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'main.cts'), [
      "import weida = require('weida');",
      'const rt: weida.Runtime = new weida.Runtime();',
      'export const level: number = weida.ACCEPTED + rt.suppressedDuplicates();',
      '',
    ].join('\n'));
    execFileSync(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', dir], { stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc refused: ${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
