// The declared surface matches the real one: index.d.ts declares every
// export and every public method, and every public method carries JSDoc.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import weida from 'weida';

const root = dirname(createRequire(import.meta.url).resolve('weida'));
const declarations = readFileSync(join(root, 'index.d.ts'), 'utf8');
const sources = readdirSync(join(root, 'lib')).map((f) => readFileSync(join(root, 'lib', f), 'utf8')).join('\n');

const classes = Object.entries(weida).filter(([, v]) => typeof v === 'function' && /^class\b/.test(v.toString()));

function publicMethods(cls) {
  const own = (o) => Object.getOwnPropertyNames(o).filter((n) => n !== 'constructor' && n !== 'prototype' &&
    n !== 'length' && n !== 'name' && !n.startsWith('_') && typeof Object.getOwnPropertyDescriptor(o, n).value === 'function');
  return { instance: own(cls.prototype), statics: own(cls) };
}

function declaredBlock(name) {
  const start = declarations.search(new RegExp(`(export|declare) (abstract )?class ${name}\\b`));
  assert.ok(start >= 0, `index.d.ts declares class ${name}`);
  const end = declarations.indexOf('\n}', start);
  return declarations.slice(start, end < 0 ? undefined : end);
}

test('index.d.ts declares every export', () => {
  for (const name of Object.keys(weida)) {
    assert.match(declarations, new RegExp(`export (const|class|function) ${name}\\b`), name);
  }
});

test('index.d.ts declares every public method of every class', () => {
  const handle = declaredBlock('Handle');
  for (const [name, cls] of classes) {
    const block = declaredBlock(name);
    const { instance, statics } = publicMethods(cls);
    for (const m of instance) {
      assert.ok(new RegExp(`\\b${m}\\(`).test(block) || new RegExp(`\\b${m}\\(`).test(handle), `${name}.${m}`);
    }
    for (const m of statics) assert.match(block, new RegExp(`static ${m}\\(`), `${name}.${m}`);
  }
});

test('every public method carries JSDoc', () => {
  for (const [name, cls] of classes) {
    if (cls.prototype instanceof Error) continue; // generated from one documented table
    const { instance, statics } = publicMethods(cls);
    for (const m of [...instance, ...statics]) {
      const documented = new RegExp(`\\*/\\s*\\n\\s*(static )?(async )?\\*?${m}\\(`);
      assert.match(sources, documented, `${name}.${m} has a doc comment`);
    }
  }
});

test('the addon and the library load from the installed package', { skip: process.platform !== 'linux' }, () => {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  const loaded = (name) => [...new Set(maps.split('\n').filter((l) => l.endsWith(`/${name}`)).map((l) => l.slice(l.indexOf('/'))))];
  const prebuilt = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
  assert.deepEqual(loaded('node.napi.glibc.node'), [join(prebuilt, 'node.napi.glibc.node')]); // prebuildify's name
  assert.deepEqual(loaded('libweida.so.1'), [join(prebuilt, 'libweida.so.1')]); // its SONAME, through the $ORIGIN rpath
});
