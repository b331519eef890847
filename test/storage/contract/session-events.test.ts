// Storage contract, both drivers: session events (dense seqs, verbatim payloads, replay ranges, pruning) and actor snapshots.
import t from 'tap';
import { constraintKind } from '../../../storage/port/errors.js';
import type { ActorSnapshot } from '../../../storage/records/snapshots.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE } from './seed.js';
import { newSession, seedSession } from './session-seed.js';

const drivers = await useStorageDrivers(t);

contract(t, drivers, 'session events: dense seqs per session, payload bytes as sent, ranges, bounds, pruning keeps the newest', async (t, db) => {
  const { sessionEvents, sessions } = db.repos;
  await seedSession(db);
  await sessions.insertSession(newSession('s-2'));
  t.strictSame(await sessionEvents.bounds('s-1'), { minSeq: 0, maxSeq: 0 }, 'no events yet');
  t.equal(await sessionEvents.maxSeq('s-1'), 0);
  // Payloads as the live stream sent them: spacing, escapes and non-ASCII are replayed byte for byte.
  const payloads = ['{"text":"hé 🚀"}', '{ "z": 1,  "a": "\\u0000" }', '{}', '{"n":1.50}'];
  const seqs: number[] = [];
  for (const [i, payload] of payloads.entries()) seqs.push(await sessionEvents.appendNext('s-1', FAR_FUTURE + i, i === 0 ? 'turn.started' : 'token', payload));
  t.strictSame(seqs, [1, 2, 3, 4]);
  t.equal(await sessionEvents.appendNext('s-2', 1, 'turn.started', '{}'), 1, 'seqs count per session');
  t.strictSame(await sessionEvents.listRange('s-1', 0, 100, 10), payloads.map((payload, i) => ({
    seq: i + 1, ts: FAR_FUTURE + i, type: i === 0 ? 'turn.started' : 'token', payload,
  })));
  t.strictSame((await sessionEvents.listRange('s-1', 1, 3, 10)).map((e) => e.seq), [2, 3], 'after, through');
  t.strictSame((await sessionEvents.listRange('s-1', 0, 100, 2)).map((e) => e.seq), [1, 2], 'limit');
  t.strictSame(await sessionEvents.listRange('nope', 0, 100, 10), []);
  t.strictSame(await sessionEvents.bounds('s-1'), { minSeq: 1, maxSeq: 4 });

  // A row written by someone who does not share the allocator (another process or node): the next seq follows it.
  await db.exec(`INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES ('s-1', 5, 1, 'token', '{}')`);
  t.equal(await sessionEvents.appendNext('s-1', 2, 'token', '{"after":"foreign"}'), 6, 'no seq is taken twice or skipped');
  t.strictSame((await sessionEvents.listRange('s-1', 4, 6, 10)).map((e) => [e.seq, e.payload]), [[5, '{}'], [6, '{"after":"foreign"}']]);

  t.equal(await sessionEvents.pruneThrough('s-1', 3), 3);
  t.strictSame(await sessionEvents.bounds('s-1'), { minSeq: 4, maxSeq: 6 });
  t.equal(await sessionEvents.pruneThrough('s-1', 100), 2, 'the newest row survives: the seq high-water mark');
  t.strictSame(await sessionEvents.bounds('s-1'), { minSeq: 6, maxSeq: 6 });
  t.equal(await sessionEvents.appendNext('s-1', 3, 'token', '{}'), 7, 'numbering never restarts');
  t.equal(await sessionEvents.pruneThrough('nope', 100), 0);
  t.equal(constraintKind(await sessionEvents.appendNext('nope', 1, 'token', '{}').catch((e: unknown) => e)), 'foreign_key');
});

const snapshot = (actorId: string, over: Partial<ActorSnapshot> = {}): ActorSnapshot => ({
  actorId, machine: 'session-turn', machineVersion: 1, status: 'active', snapshot: '{"value": "idle", "context":{"z":1,"a":2}}', updatedAt: FAR_FUTURE, ...over,
});

contract(t, drivers, 'actor snapshots: text kept verbatim, insert once, upsert within its kind, status, active pages, kinds, remove', async (t, db) => {
  const { snapshots } = db.repos;
  t.equal(await snapshots.insert(snapshot('a-1')), true);
  t.equal(await snapshots.insert(snapshot('a-1', { snapshot: '{}' })), false, 'the id is taken: nothing written');
  t.strictSame(await snapshots.get('a-1'), snapshot('a-1'), 'snapshot text byte for byte');
  t.equal(await snapshots.get('nope'), undefined);
  t.equal(await snapshots.upsert(snapshot('a-1', { machineVersion: 2, snapshot: '{ "v" :2 }', updatedAt: 5 })), true);
  t.strictSame(await snapshots.get('a-1'), snapshot('a-1', { machineVersion: 2, snapshot: '{ "v" :2 }', updatedAt: 5 }));
  t.equal(await snapshots.upsert(snapshot('a-1', { machine: 'flow-run', snapshot: '[]' })), false, 'another kind\'s id: nothing written');
  t.equal((await snapshots.get('a-1'))!.machine, 'session-turn');
  t.equal(await snapshots.upsert(snapshot('a-2', { machine: 'flow-run' })), true, 'a new id is inserted');

  for (const id of ['a-3', 'a-4', 'a-5']) await snapshots.insert(snapshot(id));
  t.equal(await snapshots.setStatus('a-4', 'session-turn', 'done', 9), true);
  t.equal(await snapshots.setStatus('a-4', 'flow-run', 'failed', 9), false, 'kind must match');
  t.match(await snapshots.get('a-4'), { status: 'done', updatedAt: 9 });
  // Upserting a-1 kept its place: pages follow first insertion, whatever was written since.
  await snapshots.upsert(snapshot('a-1', { snapshot: '{"later":true}' }));
  const first = await snapshots.activePage('session-turn', 0, 2);
  t.strictSame(first.map((s) => s.actorId), ['a-1', 'a-3']);
  t.ok(first[0]!.rowid < first[1]!.rowid);
  t.strictSame(first[0], { ...snapshot('a-1', { snapshot: '{"later":true}' }), rowid: first[0]!.rowid });
  const second = await snapshots.activePage('session-turn', first[1]!.rowid, 2);
  t.strictSame(second.map((s) => s.actorId), ['a-5'], 'a-4 is done: not active');
  t.strictSame(await snapshots.activePage('session-turn', second[0]!.rowid, 2), []);
  t.strictSame(await snapshots.activeKinds(), [{ machine: 'flow-run', count: 1 }, { machine: 'session-turn', count: 3 }]);
  t.equal(await snapshots.remove('a-1', 'flow-run'), false);
  t.equal(await snapshots.remove('a-1', 'session-turn'), true);
  t.equal(await snapshots.get('a-1'), undefined);
  t.equal(await snapshots.insert(snapshot('a-1', { snapshot: '{}' })), true, 'the id is free again');
});
