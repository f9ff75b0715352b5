// Completion reports (cursors): a sender orders levels, the receiver
// reports through its Reporter, the sender's Cursors show how far the
// payload got. After upstream's test_cursors.py, reduced to Promises.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import weida from 'weida';
import { MIB, byAddress, pushPull, served } from './support.mjs';

const { PROCESSED, ACCEPTED, PROGRESS, FINAL_ONLY, APPLICATION_FLOOR } = weida;
const APP_LEVEL = APPLICATION_FLOOR + 3;

/** Reads changes until level reaches offset; fails if the report ends first. */
async function watchUntil(cursors, level, offset) {
  for await (const snapshot of cursors.changes()) {
    if (snapshot.get(level) === offset) return snapshot;
  }
  assert.fail(`the report ended before level ${level} reached ${offset}: ${[...cursors.snapshot()]}`);
}

test('a PROCESSED verdict for a push, with no exchange', async () => {
  const { pusher, puller } = await pushPull('/jobs');
  const body = Buffer.alloc(100_000, 'j');
  const cursors = await pusher.send(body, { report: [PROCESSED] });
  assert.ok(cursors instanceof weida.Cursors);
  assert.deepEqual(cursors.snapshot(), new Map());
  assert.equal(cursors.offset(PROCESSED), null);

  const { payload, meta, reporter } = await puller.recvReporting(MIB);
  assert.deepEqual(payload, body);
  assert.deepEqual([meta.report, meta.reportMode], [[PROCESSED], PROGRESS]);
  assert.notEqual(meta.reportId, null);
  assert.ok(reporter instanceof weida.Reporter);
  assert.deepEqual([reporter.levels, reporter.mode], [[PROCESSED], PROGRESS]);
  await reporter.report(PROCESSED, payload.length);
  await reporter.finish();

  assert.deepEqual(await watchUntil(cursors, PROCESSED, body.length), new Map([[PROCESSED, body.length]]));
  assert.equal(cursors.offset(PROCESSED), body.length);
  for await (const _ of cursors.changes()); // the reporter finished: the report ends
  assert.equal(await cursors.changed(), null);
});

test('an application level is carried; FINAL_ONLY reports once', async () => {
  const { pusher, puller } = await pushPull('/app');
  const cursors = await pusher.send(Buffer.from('abc'), { report: [APP_LEVEL, ACCEPTED, APP_LEVEL], mode: FINAL_ONLY });
  const { meta, reporter } = await puller.recvReporting(MIB);
  assert.deepEqual(meta.report, [ACCEPTED, APP_LEVEL]); // sorted, de-duplicated
  assert.equal(reporter.mode, FINAL_ONLY);
  await reporter.report(ACCEPTED, 3);
  await reporter.report(APP_LEVEL, 1);
  await reporter.report(APP_LEVEL, 3n); // a BigInt offset is fine
  await reporter.report(99, 3); // not ordered: ignored, not refused
  await reporter.finish();
  let last = null;
  for await (const snapshot of cursors.changes()) last = snapshot;
  assert.deepEqual(last, new Map([[ACCEPTED, 3], [APP_LEVEL, 3]]));
});

test('a reserved level, an unknown mode or an out-of-range level is Protocol', async () => {
  const { pusher } = await pushPull('/bad');
  const x = Buffer.from('x');
  await assert.rejects(pusher.send(x, { report: [7] }), weida.Protocol);
  await assert.rejects(pusher.send(x, { report: [PROCESSED], mode: 9 }), weida.Protocol);
  await assert.rejects(pusher.send(x, { report: [-1] }), weida.Protocol);
  await assert.rejects(pusher.send(x, { report: [2n ** 64n] }), weida.Protocol);
  const seventeen = Array.from({ length: 17 }, (_, i) => APPLICATION_FLOOR + i);
  await assert.rejects(pusher.send(x, { report: seventeen }), weida.Protocol);
  await assert.rejects(pusher.send(x, { report: PROCESSED }), TypeError); // a list of levels, not one
  await assert.rejects(pusher.send(x, { report: ['5'] }), TypeError);
  await assert.rejects(pusher.send(x, { report: [PROCESSED], mode: 'final' }), TypeError);
});

test('no order means no handles', async () => {
  const { pusher, puller } = await pushPull('/plain');
  const before = weida.diagnostics.handlesLive();
  assert.equal(await pusher.send(Buffer.from('plain')), undefined);
  assert.equal(await pusher.send(Buffer.from('empty order'), { report: [] }), null);
  const got = [];
  for (let i = 0; i < 2; i++) { // two streams: either may arrive first
    const { payload, meta, reporter } = await puller.recvReporting(MIB);
    got.push(payload.toString());
    assert.equal(reporter, null);
    assert.deepEqual([meta.report, meta.reportMode, meta.reportId], [[], null, null]);
  }
  assert.deepEqual(got.sort(), ['empty order', 'plain']);
  assert.equal(weida.diagnostics.handlesLive(), before);
});

test('a streamed transfer orders a report', async () => {
  const { pusher, puller } = await pushPull('/stream');
  const out = await pusher.open({ report: [PROCESSED] });
  const cursors = await out.cursors();
  assert.ok(cursors instanceof weida.Cursors);
  assert.equal(await out.cursors(), null); // handed out once
  for (let i = 0; i < 4; i++) await out.write(Buffer.alloc(16384, 's'));
  await out.finish();

  const { stream: incoming, meta } = await puller.recvStream();
  assert.deepEqual(meta.report, [PROCESSED]);
  const reporter = await incoming.reporter();
  assert.equal(await incoming.reporter(), null); // handed out once
  let total = 0;
  for await (const piece of incoming.chunks(16384)) {
    total += piece.length;
    await reporter.report(PROCESSED, total);
  }
  await reporter.finish();
  assert.deepEqual(await watchUntil(cursors, PROCESSED, 4 * 16384), new Map([[PROCESSED, 4 * 16384]]));
});

test('a plain stream has no cursors and no reporter', async () => {
  const { pusher, puller } = await pushPull('/plainstream');
  const out = await pusher.open();
  await out.write(Buffer.from('abc'));
  await out.finish();
  assert.equal(await out.cursors(), null);
  const { stream } = await puller.recvStream();
  assert.equal(await stream.reporter(), null);
});

test('an aborted wait leaves the report going', async () => {
  const { pusher, puller } = await pushPull('/wait');
  const cursors = await pusher.send(Buffer.from('job'), { report: [PROCESSED] });
  await assert.rejects(cursors.changed({ signal: AbortSignal.timeout(50) }), (e) => e.name === 'TimeoutError');
  const { reporter } = await puller.recvReporting(MIB);
  await reporter.report(PROCESSED, 3);
  await reporter.finish();
  assert.deepEqual(await watchUntil(cursors, PROCESSED, 3), new Map([[PROCESSED, 3]]));
});

test('a finished reporter is spent', async () => {
  const { pusher, puller } = await pushPull('/spent');
  await pusher.send(Buffer.from('job'), { report: [PROCESSED] });
  const { reporter } = await puller.recvReporting(MIB);
  await reporter.finish();
  await assert.rejects(reporter.finish(), weida.NoReply);
  await assert.rejects(reporter.report(PROCESSED, 3), weida.NoReply);
});

test('PAIR orders a report from the other end', async () => {
  const { binding, client } = await served();
  const bound = binding.pair('/pair');
  const dialling = client.pair(byAddress());
  await dialling.connect(binding.url('/pair'));
  const cursors = await dialling.send(Buffer.from('hello'), { report: [ACCEPTED] });
  const { payload, meta, reporter } = await bound.recvReporting(MIB);
  assert.deepEqual([payload.toString(), meta.report], ['hello', [ACCEPTED]]);
  await reporter.report(ACCEPTED, payload.length);
  await reporter.finish();
  assert.deepEqual(await watchUntil(cursors, ACCEPTED, 5), new Map([[ACCEPTED, 5]]));
});

test('a streamed PAIR message orders a report', async () => {
  const { binding, client } = await served();
  const bound = binding.pair('/pair');
  const dialling = client.pair(byAddress());
  await dialling.connect(binding.url('/pair'));
  const out = await dialling.open({ report: [PROCESSED] });
  const cursors = await out.cursors();
  await out.write(Buffer.from('streamed'));
  await out.finish();
  const { stream } = await bound.recvStream();
  const reporter = await stream.reporter();
  const body = await stream.collect(MIB);
  await reporter.report(PROCESSED, body.length);
  await reporter.finish();
  assert.deepEqual(await watchUntil(cursors, PROCESSED, 8), new Map([[PROCESSED, 8]]));
});
