// Local transports and connection statistics: every pattern over the
// in-process bus, Push/Pull over a unix socket (the kernel proves the
// peer's uid), and connectionStats() — QUIC's figures over QUIC, null for a
// local transport's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, served, until } from './support.mjs';

let buses = 0;
/** A bus name no other test in this process has bound. */
const busName = () => `node-local-${process.pid}-${buses++}`;

/** {binding, client}: a binding on a fresh bus and a client runtime. */
function inproc() {
  return { binding: new weida.Runtime().bindInproc(busName()), client: new weida.Runtime() };
}

/** A temporary directory for one unix socket, removed by the returned cleanup. */
function socketDir() {
  const dir = mkdtempSync(join(tmpdir(), 'weida-node-'));
  return { path: join(dir, 's.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('an inproc binding names its bus, proves no key and gives an inproc URL', () => {
  const name = busName();
  const binding = new weida.Runtime().bindInproc(name);
  assert.equal(binding.localAddr(), name);
  assert.equal(binding.fingerprint(), null);
  assert.equal(binding.url('/echo'), `weida+inproc://${name}/echo`);
  binding.close();
});

test('bad and taken bus names are refused with the library kind', () => {
  const runtime = new weida.Runtime();
  const name = busName();
  const keep = runtime.bindInproc(name);
  for (const [bus, error] of [[name, weida.AddressInUse], ['a/b', weida.InvalidAddress], ['', weida.InvalidAddress],
    ['x'.repeat(257), weida.InvalidAddress]]) {
    assert.throws(() => runtime.bindInproc(bus), error, bus.slice(0, 20));
  }
  assert.throws(() => runtime.bindInproc(42), TypeError);
  keep.close();
  runtime.bindInproc(name).close(); // free again once its binding closed
});

test('a QUIC binding keeps its fingerprint', async () => {
  const identity = weida.Identity.generate();
  const binding = await new weida.Runtime().bind('127.0.0.1:0', identity);
  assert.equal(binding.fingerprint(), identity.fingerprint());
  binding.close();
});

test('Req/Rep over inproc', async () => {
  const { binding, client } = inproc();
  const replier = binding.replier('/upper');
  const requester = client.requester(byAddress());
  await requester.connect(binding.url('/upper'));
  const answering = (async () => {
    const request = await replier.accept(MIB);
    assert.deepEqual([request.meta.endpoint, request.meta.peer], ['/upper', null]);
    await request.reply(Buffer.from(request.payload.toString().toUpperCase()));
  })();
  assert.equal((await requester.request(Buffer.from('quiet'), MIB)).toString(), 'QUIET');
  await answering;
  binding.close();
});

test('Push/Pull, Pub/Sub and PAIR over inproc', async () => {
  const { binding, client } = inproc();
  const puller = binding.puller('/jobs');
  const pusher = client.pusher(byAddress());
  await pusher.connect(binding.url('/jobs'));
  await pusher.send(Buffer.from('job'));
  const job = await puller.recv(MIB);
  assert.deepEqual([job.payload.toString(), job.meta.peer], ['job', null]);

  const publisher = binding.publisher('/px');
  const subscriber = client.subscriber(byAddress());
  await subscriber.connect(binding.url('/px'));
  await subscriber.subscribe('px.#');
  await until(() => publisher.filterCount() === 1, 'the subscription');
  assert.equal(publisher.publish('px.eur', Buffer.from('1.08')), 1);
  const copy = await subscriber.recv(MIB);
  assert.deepEqual([copy.payload.toString(), copy.meta.topic], ['1.08', 'px.eur']);

  const bound = binding.pair('/pair');
  const dialler = client.pair(byAddress());
  await dialler.connect(binding.url('/pair'));
  await dialler.send(Buffer.from('ping'));
  assert.equal((await bound.recv(MIB)).payload.toString(), 'ping');
  await bound.send(Buffer.from('pong'));
  assert.equal((await dialler.recv(MIB)).payload.toString(), 'pong');
  binding.close();
});

test('SURVEY, BUS and RADIO/DISH over inproc', async () => {
  const { binding, client } = inproc();
  const respondent = binding.respondent('/vote');
  const surveyor = client.surveyor(byAddress());
  await surveyor.connect(binding.url('/vote'));
  const answering = (async () => (await respondent.accept(MIB)).reply(Buffer.from('yes')))();
  const survey = await surveyor.survey(Buffer.from('ready?'), 5, MIB);
  await answering;
  assert.deepEqual([survey.replies.map(String), survey.asked, survey.silent()], [['yes'], 1, 0]);

  const other = inproc().binding;
  const a = binding.bus('/bus', byAddress());
  const b = other.bus('/bus', byAddress());
  await a.connect(other.url('/bus'));
  assert.equal(await a.send(Buffer.from('from a')), 1);
  assert.equal((await b.recv(MIB)).payload.toString(), 'from a');

  const radio = binding.radio('/cam');
  const dish = client.dish(byAddress());
  await dish.connect(binding.url('/cam'));
  await dish.join('cam.#');
  await until(() => radio.dishCount() === 1, 'the radio to apply the join');
  const segment = radio.segment('cam.front');
  segment.write(Buffer.from('frame'));
  assert.equal(segment.finish(), 1);
  const got = await dish.recv(MIB);
  assert.deepEqual([got.kind, got.payload.toString(), got.meta.topic], ['segment', 'frame', 'cam.front']);
  binding.close();
  other.close();
});

test('Push over a unix socket: the puller learns the uid from the kernel', async () => {
  const { path, cleanup } = socketDir();
  try {
    const binding = new weida.Runtime().bindUnix(path);
    assert.equal(binding.fingerprint(), null);
    assert.equal(binding.localAddr(), path);
    const url = binding.url('/jobs');
    assert.equal(url, `weida+unix://${path.replaceAll('/', '%2F')}/jobs`);
    const puller = binding.puller('/jobs');
    const pusher = new weida.Runtime().pusher(byAddress());
    await pusher.connect(url);
    await pusher.send(Buffer.from('over unix'));
    const { payload, meta } = await puller.recv(MIB);
    assert.equal(payload.toString(), 'over unix');
    assert.match(meta.peer, new RegExp(`^uid=${process.getuid()} gid=${process.getgid()}( pid=\\d+)?$`));
    const [stats] = pusher.connectionStats();
    assert.deepEqual([stats.url, stats.live, stats.transport], [url, true, null]);
    assert.throws(() => new weida.Runtime().bindUnix(path), weida.AddressInUse); // live: not replaced
    binding.close();
  } finally {
    cleanup();
  }
});

test('inproc stats are live with no transport figures', async () => {
  const { binding, client } = inproc();
  const puller = binding.puller('/jobs');
  const pusher = client.pusher(byAddress());
  assert.deepEqual(pusher.connectionStats(), []);
  await pusher.connect(binding.url('/jobs'));
  const [stats] = pusher.connectionStats();
  assert.ok(stats instanceof weida.ConnectionStats);
  assert.deepEqual([stats.url, stats.live, stats.redials, stats.transport, stats.remote],
    [binding.url('/jobs'), true, 0, null, null]);
  assert.ok(stats.age >= 0);
  assert.ok(Object.isFrozen(stats));
  assert.equal(puller.path(), '/jobs');
  binding.close();
});

test('QUIC stats carry quic-go\'s measurement', async () => {
  const { binding, client } = await served();
  const replier = binding.replier('/echo');
  const requester = client.requester(byAddress());
  const url = binding.url('/echo');
  await requester.connect(url);
  const answering = (async () => {
    const request = await replier.accept(MIB);
    await request.reply(request.payload);
  })();
  assert.equal((await requester.request(Buffer.alloc(5000, 120), MIB)).length, 5000);
  await answering;
  const [stats] = requester.connectionStats();
  assert.deepEqual([stats.url, stats.live, stats.remote], [url, true, null]);
  const { transport } = stats;
  assert.ok(transport instanceof weida.TransportStats);
  assert.ok(transport.path instanceof weida.PathStats);
  assert.ok(transport.tx instanceof weida.UdpCounts);
  assert.ok(transport.path.rtt > 0 && transport.path.rtt < 10, `rtt ${transport.path.rtt}`);
  assert.equal(transport.path.currentMtu, null);
  assert.ok(transport.path.congestionWindow > 0);
  assert.ok(transport.tx.bytes > 5000, 'the request went out');
  assert.ok(transport.rx.bytes > 5000, 'and its echo came back');
  assert.ok(transport.tx.packets > 0);
  binding.close();
});

test('URLs are reported in connect order, each with its own transport', async () => {
  const { binding: quic, client } = await served();
  const { binding: local } = inproc();
  const pullers = [quic.puller('/jobs'), local.puller('/jobs')];
  const pusher = client.pusher(byAddress());
  await pusher.connect(local.url('/jobs'));
  await pusher.connect(quic.url('/jobs'));
  const stats = pusher.connectionStats();
  assert.deepEqual(stats.map((s) => s.url), [local.url('/jobs'), quic.url('/jobs')]);
  assert.deepEqual(stats.map((s) => s.transport === null), [true, false]);
  assert.deepEqual(pullers.map((p) => p.path()), ['/jobs', '/jobs']);
  quic.close();
  local.close();
});

test('every dialling endpoint reports its URL; a bound PAIR reports none', async () => {
  const { binding, client } = inproc();
  const other = inproc().binding;
  const registered = [binding.replier('/r'), binding.publisher('/p'), binding.pair('/pair'), binding.respondent('/s'),
    binding.radio('/cam'), binding.bus('/bus', byAddress())];
  const endpoints = {
    '/r': client.requester(byAddress()), '/p': client.subscriber(byAddress()), '/pair': client.pair(byAddress()),
    '/s': client.surveyor(byAddress()), '/cam': client.dish(byAddress()), '/bus': other.bus('/bus', byAddress()),
  };
  for (const [path, endpoint] of Object.entries(endpoints)) {
    await endpoint.connect(binding.url(path));
    assert.deepEqual(endpoint.connectionStats().map((s) => [s.url, s.live, s.transport]),
      [[binding.url(path), true, null]], path);
  }
  assert.deepEqual(registered[2].connectionStats(), []); // bound: it dials nothing
  assert.deepEqual(registered[5].connectionStats(), []); // a bus member that dialled no one
  binding.close();
  other.close();
});
