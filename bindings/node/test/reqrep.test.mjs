// Req/Rep and the module surface, after upstream's test_asyncio.py.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, reqRep, served } from './support.mjs';

async function echoOnce(replier, ceiling = MIB) {
  const request = await replier.accept(ceiling);
  await request.reply(request.payload);
  return request;
}

test('a request is answered over QUIC', async () => {
  const { replier, requester } = await reqRep();
  const asking = requester.request(Buffer.from('ping'), MIB);
  const request = await echoOnce(replier);
  assert.deepEqual(await asking, Buffer.from('ping'));
  assert.ok(Buffer.isBuffer(request.payload));
  assert.equal(request.payload.toString(), 'ping');
  assert.ok(request.meta instanceof weida.IncomingMeta);
  assert.equal(request.meta.endpoint, '/echo');
  assert.equal(request.meta.peer, null); // an anonymous client proves no key
  assert.equal(replier.path(), '/echo');
  assert.equal(requester.peerCount(), 1);
});

test('a Uint8Array payload is accepted and a Buffer comes back', async () => {
  const { replier, requester } = await reqRep();
  const asking = requester.request(new Uint8Array([1, 2, 3]), 10);
  await echoOnce(replier, 10);
  assert.deepEqual([...(await asking)], [1, 2, 3]);
});

test('a reply above the ceiling rejects with LimitExceeded; a request above it is Rejected', async () => {
  const { replier, requester } = await reqRep();
  const asking = requester.request(Buffer.from('x'), 4);
  const request = await replier.accept(MIB);
  await request.reply(Buffer.alloc(10));
  await assert.rejects(asking, (e) => e instanceof weida.LimitExceeded && e.code === 19 && e.codeName === 'WEIDA_ELIMIT' && /4 bytes/.test(e.message));
  const accepting = replier.accept(10); // the refused request is skipped: this stays pending
  await assert.rejects(requester.request(Buffer.alloc(50), MIB), weida.Rejected);
  replier.close();
  await assert.rejects(accepting, weida.Canceled);
});

test('Rejected and UnknownEndpoint are distinct', async () => {
  const { binding, client, replier, requester } = await reqRep();
  const asking = requester.request(Buffer.from('x'), 10);
  await (await replier.accept(10)).refuse();
  await assert.rejects(asking, weida.Rejected);
  const nowhere = client.requester(byAddress());
  await nowhere.connect(binding.url('/nothing'));
  await assert.rejects(nowhere.request(Buffer.from('x'), 10), (e) => e instanceof weida.UnknownEndpoint && !(e instanceof weida.Rejected));
});

test('a wrong key is Untrusted, naming the key that answered', async () => {
  const { binding, client } = await served();
  const real = binding.fingerprint();
  const url = binding.url('/echo').replace(real, weida.Identity.generate().fingerprint());
  await assert.rejects(client.requester(byAddress()).connect(url), (e) => {
    assert.ok(e instanceof weida.Untrusted);
    assert.ok(e.message.includes(real));
    assert.equal(e.kind, 'Untrusted');
    assert.equal(e.codeName, 'WEIDA_EUNTRUSTED');
    assert.equal(e.code, 23);
    return true;
  });
});

test('a request is answered once; its payload stays readable', async () => {
  const { replier, requester } = await reqRep();
  const asking = requester.request(Buffer.from('once'), 10);
  const request = await echoOnce(replier);
  await assert.rejects(request.reply(Buffer.from('twice')), weida.NoReply);
  assert.equal(request.payload.toString(), 'once');
  assert.equal((await asking).toString(), 'once');
});

test('closing a request unanswered sends NoReply to the asker', async () => {
  const { replier, requester } = await reqRep();
  const asking = requester.request(Buffer.from('x'), 10);
  (await replier.accept(10)).close();
  await assert.rejects(asking, weida.NoReply);
});

test('requests are readable with for await until the replier is closed', async () => {
  const { replier, requester } = await reqRep();
  const serving = (async () => {
    let n = 0;
    for await (const request of replier.requests(MIB)) {
      await request.reply(Buffer.concat([request.payload, Buffer.from('!')]));
      if (++n === 3) replier.close(); // ends the loop quietly
    }
    return n;
  })();
  for (const word of ['a', 'b', 'c']) {
    assert.equal((await requester.request(Buffer.from(word), 10)).toString(), `${word}!`);
  }
  assert.equal(await serving, 3);
});

test('a streamed exchange: write, finish, then the reply half', async () => {
  const { replier, requester } = await reqRep('/upper');
  const { stream, reply } = await requester.open();
  await stream.write(Buffer.from('hello '));
  await stream.write(Buffer.from('weida'));
  await stream.finish();
  const request = await replier.accept(MIB);
  assert.equal(request.payload.toString(), 'hello weida');
  await request.reply(Buffer.from(request.payload.toString().toUpperCase()));
  const { stream: incoming, meta } = await reply.recv();
  assert.equal(meta.endpoint, null); // a reply half names no endpoint
  assert.equal((await incoming.collect(MIB)).toString(), 'HELLO WEIDA');
});

test('the module surface', () => {
  assert.equal(weida.VERSION, 0);
  assert.ok(Buffer.isBuffer(weida.ALPN));
  assert.equal(weida.ALPN.toString(), 'weida/0');
  const levels = [weida.TRANSPORT_RECEIPT, weida.ACCEPTED, weida.STORED, weida.REPLICATED, weida.PROCESSED];
  assert.deepEqual(levels, [1, 2, 3, 4, 5]);
  assert.equal(weida.APPLICATION_FLOOR, 16);
  assert.deepEqual([weida.PROGRESS, weida.FINAL_ONLY], [0, 1]);
  assert.equal(typeof weida.version, 'string');
  assert.ok(!(weida.Runtime.prototype instanceof Error)); // the runtime class is no error
});

test('drain resolves to delivered and outstanding', async () => {
  const { binding } = await served();
  const puller = binding.puller('/sink');
  const client = new weida.Runtime();
  const pusher = client.pusher(byAddress());
  await pusher.connect(binding.url('/sink'));
  await pusher.send(Buffer.from('one'));
  const receiving = puller.recv(MIB);
  const drained = await client.drain(2);
  assert.deepEqual(Object.keys(drained).sort(), ['delivered', 'outstanding']);
  assert.ok(drained.delivered >= 0 && drained.outstanding >= 0);
  assert.equal((await receiving).payload.toString(), 'one');
});

test('bad deadlines reject with RuntimeFailure; a non-number is a TypeError', async () => {
  const { client } = await served();
  const surveyor = client.surveyor(byAddress());
  for (const bad of [-1, Number.NaN, Infinity]) {
    await assert.rejects(surveyor.survey(Buffer.from('q'), bad, 10), weida.RuntimeFailure, `deadline ${bad}`);
    await assert.rejects(client.drain(bad), weida.RuntimeFailure, `drain ${bad}`);
  }
  await assert.rejects(surveyor.survey(Buffer.from('q'), '1', 10), TypeError);
});

test('objects keep their runtime alive after the runtime object is closed', async () => {
  const { server, binding, client } = await served();
  const replier = binding.replier('/echo');
  const requester = client.requester(byAddress());
  server.close();
  client.close();
  await requester.connect(binding.url('/echo'));
  const asking = requester.request(Buffer.from('still here'), MIB);
  await echoOnce(replier);
  assert.equal((await asking).toString(), 'still here');
});
