// The installed npm package on the machine it was copied to (tests/dist/roots.sh
// runs it in Debian 11 roots, arm64 under qemu-user): the addon loads through
// its prebuild, the constants and versions are the release's, and one request
// crosses real QUIC on loopback, both halves in this process.
//
//   node smoke.mjs VERSION
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import weida from 'weida';

const version = process.argv[2];
const where = createRequire(import.meta.url).resolve('weida');
assert.equal(weida.VERSION, 0);
assert.equal(weida.ALPN.toString(), 'weida/0');
assert.equal(weida.version, version, 'the package version');
assert.equal(weida.diagnostics.libraryVersion(), version, 'the library version');
console.log(`smoke.mjs: weida ${weida.version} from ${where} on ${process.platform}-${process.arch}, Node ${process.version}`);

const server = new weida.Runtime();
const binding = await server.bind('127.0.0.1:0', weida.Identity.generate());
const replier = binding.replier('/echo');
const requester = new weida.Runtime().requester(weida.Trust.byAddress());
await requester.connect(binding.url('/echo'));
const asking = requester.request(Buffer.from('ping'), 1 << 20);
const request = await replier.accept(1 << 20);
await request.reply(Buffer.from(request.payload.toString().toUpperCase()));
assert.equal((await asking).toString(), 'PING');
console.log(`smoke.mjs: ${binding.url('/echo')} answered PING over QUIC`);
console.log('smoke.mjs: ok');
process.exit(0);
