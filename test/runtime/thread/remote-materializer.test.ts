// The execution thread's accept side (issue 12): what main's reads wait for while the worker writes accepted sessions.
/*
 * The remote materializer only keeps marks and posts messages; the worker's side (writing the rows) is covered end to
 * end in test/e2e/execution-thread.test.ts and test/e2e/crash-thread.test.ts. Here the messages it posts are read
 * and the worker's reports given back by hand, in the orders a worker can produce them.
 */
import t from 'tap';
import type { PendingSource, PendingStart } from '../../../runtime/execution/materializer.js';
import type { ToWorker } from '../../../runtime/thread/protocol.js';
import { createRemoteMaterializer } from '../../../runtime/thread/remote-materializer.js';

function start(sessionId: string): PendingStart {
  return { sessionId, executionId: `${sessionId}-x`, orgId: 'o', domainId: 'd', automationId: 'a', revision: 1, visibility: 'domain', origin: 'api', actorUserId: null, message: 'hi', acceptedAt: 0 };
}
const run = (id: string, ...sessions: string[]): PendingSource => ({ kind: 'run', id, starts: sessions.map(start) });
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `promise` has settled after the current turns (false: still waiting). */
async function settled(promise: Promise<unknown> | null): Promise<boolean> {
  if (promise === null) return true;
  let done = false;
  void promise.then(() => (done = true));
  await tick();
  return done;
}

function harness() {
  const posted: ToWorker[] = [];
  const m = createRemoteMaterializer((message) => posted.push(message));
  const sourcesPosted = () => posted.flatMap((message) => (message.t === 'materialize' ? message.sources.map((s) => s.id) : []));
  return { m, posted, sourcesPosted };
}

t.test('accepts of one loop turn go in one message; a read of a session waits for that session only', async (t) => {
  const { m, posted, sourcesPosted } = harness();
  const a = m.accepted(run('r1', 's1', 's2'));
  const b = m.accepted(run('r2', 's3'));
  t.equal(posted.length, 0, 'nothing posted before the turn ends');
  await tick();
  t.equal(posted.length, 1, 'one message');
  t.same(sourcesPosted(), ['r1', 'r2']);
  t.equal(m.writtenSoFar('unknown'), null, 'a session not accepted here has nothing to wait for');
  const s3 = m.writtenSoFar('s3');
  const s1 = m.writtenSoFar('s1');
  m.written(['r2']);
  t.ok(await settled(s3), "s3's read goes on once its run is written");
  t.notOk(await settled(s1), "s1's read still waits: its run is not written");
  t.notOk(await settled(a));
  t.ok(await settled(b));
  m.written(['r1']);
  t.ok(await settled(s1));
  t.equal(m.writtenSoFar('s1'), null, 'written: nothing to wait for');
  t.equal(m.writtenSoFar(), null, 'nothing waiting at all');
});

t.test('a read naming no session waits for every source accepted so far, reported in any order', async (t) => {
  const { m } = harness();
  m.accepted(run('r1', 's1'));
  m.accepted(run('r2', 's2'));
  const all = m.writtenSoFar();
  // The newest first (an older one's unit failed and is retried alone): the read still waits for the older one.
  m.written(['r2']);
  t.notOk(await settled(all), 'the older source is not written yet');
  const later = m.accepted(run('r3', 's3'));
  m.written(['r1']);
  t.ok(await settled(all), 'everything accepted before the read is written');
  t.notOk(await settled(later), 'a source accepted after the read is not waited for by it');
  const idle = m.idle();
  t.notOk(await settled(idle));
  m.written(['r3', 'unknown-source']);
  t.ok(await settled(idle), 'idle once every source is reported (unknown reports are ignored)');
});

t.test('a restarted worker is posted every source not reported yet, once', async (t) => {
  const { m, sourcesPosted } = harness();
  m.accepted(run('r1', 's1'));
  m.accepted(run('r2', 's2'));
  await tick();
  m.written(['r1']);
  m.accepted(run('r3', 's3'));
  m.restarted();
  await tick();
  t.same(sourcesPosted(), ['r1', 'r2', 'r2', 'r3'], 'r2 posted again, r3 posted once (not again by the turn\'s flush)');
  t.equal(await m.recover(), 0, 'recovery is the worker\'s: nothing is written on this side');
  const s2 = m.writtenSoFar('s2');
  m.written(['r2', 'r2', 'r3']);
  t.ok(await settled(s2), 'a duplicate report changes nothing');
  t.equal(m.writtenSoFar(), null);
});
