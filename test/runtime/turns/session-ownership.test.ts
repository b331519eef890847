// Two nodes on one PostgreSQL database: a session's executions run on one node at a time, in order, once; a dead owner is taken over.
/*
 * Each node is what a process has: its own openPostgresStorage (pool, unit writer), lease-backed ownership and the
 * real dispatcher. The engine is a small one registered for `agent`: it writes the execution's trail through the
 * node's units (the dispatcher and the ownership are under test, not the agent's model loop).
 */
import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSessionDispatcher, type SessionDispatcher } from '../../../runtime/turns/dispatcher.js';
import type { QueuedExecution, SessionEngine } from '../../../runtime/turns/engine.js';
import { createLogger } from '../../../runtime/logger.js';
import { createAdmission, type Admission } from '../../../runtime/execution/admission.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/storage.js';
import { createPostgresSessionOwnership } from '../../../storage/postgres/session-ownership.js';
import { StaleLeaseError } from '../../../storage/postgres/leases.js';
import { soleOwnership, type SessionOwnership } from '../../../storage/port/ownership.js';
import { usePostgres } from '../../helpers/postgres.js';
import { newExecution, newMessage, newSession } from '../../storage/contract/session-seed.js';

const pg = await usePostgres(t);
const TTL = 400;

interface Node {
  name: string;
  admission: Admission;
  store: PostgresStorage;
  ownership: SessionOwnership;
  dispatcher: SessionDispatcher;
}

/** What the engines of both nodes saw: runs at once per session, and each run's trail. */
interface World {
  running: Map<string, number>;
  maxConcurrent: number;
  /** Runs that may not finish until the test says so (a node frozen mid-turn), by execution id. */
  hold: Map<string, Promise<void>>;
  /** What a held run got when it tried to write after it was released. */
  lateWrites: unknown[];
  /** The abort signal each held run was given. */
  signals: Map<string, AbortSignal>;
}

/** Runs an execution: a queued `gate` parks (suspended), a resumed one makes its gated call; others answer and settle. */
function engineOf(node: () => Node, world: World): SessionEngine {
  return {
    admit: () => Promise.reject(new Error('not used')),
    writeStart: () => Promise.reject(new Error('not used')),
    async run(execution: QueuedExecution, signal: AbortSignal) {
      const { store, name } = node();
      const key = execution.sessionId;
      const now = world.running.get(key) ?? 0;
      world.running.set(key, now + 1);
      world.maxConcurrent = Math.max(world.maxConcurrent, now + 1);
      try {
        const row = (await store.repos.executions.execution(execution.executionId))!;
        const input = row.input as { gate?: boolean };
        await store.writer.submit((tx) => tx.repos.executions.markStarted(execution.executionId, Date.now()));
        await sleep(2);
        const held = world.hold.get(execution.executionId);
        if (held !== undefined) {
          world.hold.delete(execution.executionId);
          world.signals.set(execution.executionId, signal);
          await held;
          // The frozen node wakes up and writes as if nothing happened: its claim was lost meanwhile.
          await store.writer
            .submit((tx) => tx.repos.sessions.insertMessage(newMessage(`m-${execution.executionId}-${name}`, key, { content: `${execution.executionId} by ${name}` })))
            .catch((error: unknown) => world.lateWrites.push(error));
          return;
        }
        if (input.gate === true && execution.status === 'queued') {
          await store.writer.submit((tx) => tx.repos.executions.setStatus(execution.executionId, 'suspended', Date.now()));
          return;
        }
        const content = input.gate === true ? `gated call of ${execution.executionId} by ${name}` : `${execution.executionId} by ${name}`;
        await store.writer.submit(async (tx) => {
          await tx.repos.sessions.insertMessage(newMessage(`m-${execution.executionId}-${name}`, key, { content }));
          await tx.repos.executions.settle(execution.executionId, 'completed', Date.now(), null, null);
        });
      } finally {
        world.running.set(key, world.running.get(key)! - 1);
      }
    },
  };
}

async function twoNodes(t: Test, options: { lease?: boolean } = {}): Promise<{ a: Node; b: Node; world: World }> {
  const url = await pg.database(t);
  const world: World = { running: new Map(), maxConcurrent: 0, hold: new Map(), lateWrites: [], signals: new Map() };
  const logger = createLogger('silent');
  const open = async (name: string): Promise<Node> => {
    const store = await openPostgresStorage({ url, applicationName: name });
    const ownership = options.lease === false ? soleOwnership : createPostgresSessionOwnership({ pool: store.pool, node: name, now: Date.now, ttlMs: TTL, scanEveryMs: 50 });
    const admission = createAdmission({ queueLimitSeconds: 60, queueMaxExecutions: 1_000, initialRatePerSecond: 10 });
    const node: Node = { name, store, ownership, admission, dispatcher: createSessionDispatcher({ store, logger, ownership, admission }) };
    node.dispatcher.registerEngine('agent', engineOf(() => node, world));
    return node;
  };
  const a = await open('node-a');
  const b = await open('node-b');
  t.teardown(async () => {
    for (const node of [a, b]) {
      await node.dispatcher.stop();
      await node.ownership.close?.();
      await node.store.close();
    }
  });
  await a.store.pool.query(`
    INSERT INTO organizations (id, name, created_at) VALUES ('org-1', 'Org', 1);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('dom-1', 'org-1', 'Support', 1);
    INSERT INTO users (id, email, name, created_at) VALUES ('u-1', 'u-1@example.com', 'U', 1);
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ('auto-1', 'org-1', 'dom-1', 'agent', 'Agent', 1, 1);`);
  await a.store.repos.sessions.insertSession(newSession('s-1'));
  return { a, b, world };
}

async function settled(node: Node, count: number): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    const { rows } = await node.store.pool.query(`SELECT count(*)::int AS n FROM executions WHERE settled_at IS NOT NULL`);
    if (rows[0].n >= count) return;
    await sleep(25);
  }
  throw new Error(`fewer than ${count} executions settled in time`);
}

const contents = async (node: Node): Promise<string[]> =>
  (await node.store.pool.query<{ content: string }>(`SELECT content FROM messages WHERE session_id = 's-1' ORDER BY position`)).rows.map((r) => r.content);

t.test('50 messages to one session through both nodes: each runs once, in order, one at a time', { skip: pg.skip }, async (t) => {
  const { a, b, world } = await twoNodes(t);
  for (let i = 1; i <= 50; i += 1) {
    await a.store.repos.executions.insertExecution(newExecution(`e-${String(i).padStart(2, '0')}`, 's-1'));
    (i % 2 === 0 ? b : a).dispatcher.dispatch('s-1');
  }
  await settled(a, 50);
  await Promise.all([a.dispatcher.idle(), b.dispatcher.idle()]);
  const trail = await contents(a);
  t.equal(trail.length, 50, 'one answer per execution');
  t.same(trail.map((c) => c.split(' ')[0]), Array.from({ length: 50 }, (_, i) => `e-${String(i + 1).padStart(2, '0')}`), 'in position order');
  t.equal(world.maxConcurrent, 1, 'never two runs of the session at once, across nodes');
  const { rows } = await a.store.pool.query(`SELECT holder FROM resource_leases WHERE resource = 'session:s-1'`);
  t.equal(rows[0].holder, null, 'the idle session holds no lease');
});

t.test('the same two nodes without ownership run the session twice at once (what the lease prevents)', { skip: pg.skip }, async (t) => {
  const { a, b, world } = await twoNodes(t, { lease: false });
  for (let i = 1; i <= 20; i += 1) await a.store.repos.executions.insertExecution(newExecution(`e-${String(i).padStart(2, '0')}`, 's-1'));
  a.dispatcher.dispatch('s-1');
  b.dispatcher.dispatch('s-1');
  await Promise.all([a.dispatcher.idle(), b.dispatcher.idle()]);
  t.ok(world.maxConcurrent > 1 || (await contents(a)).length > 20, 'overlapping or duplicated runs');
});

t.test('a turn suspended on A, A dies, the approval on B runs the gated call once', { skip: pg.skip }, async (t) => {
  const { a, b } = await twoNodes(t);
  await a.store.repos.executions.insertExecution(newExecution('e-gate', 's-1', { input: { gate: true } }));
  a.dispatcher.dispatch('s-1');
  await a.dispatcher.idle();
  t.equal((await a.store.repos.executions.execution('e-gate'))!.status, 'suspended', 'parked on A');
  // A is gone: its loops stop and it never answers again.
  await a.dispatcher.stop();
  await a.ownership.close?.();
  // The decision is durable first (as the approval route does), then B looks at the session.
  await b.store.writer.submit((tx) => tx.repos.executions.setStatus('e-gate', 'resume_queued', Date.now()));
  b.dispatcher.dispatch('s-1');
  await settled(b, 1);
  await b.dispatcher.idle();
  t.same(await contents(b), ['gated call of e-gate by node-b'], 'the gated call ran once, on B');
  t.equal((await b.store.repos.executions.execution('e-gate'))!.status, 'completed');
});

t.test('A freezes mid-turn holding the session: B takes over after the TTL, A\'s late write is refused', { skip: pg.skip }, async (t) => {
  const { a, b, world } = await twoNodes(t);
  let thaw!: () => void;
  world.hold.set('e-1', new Promise<void>((resolve) => (thaw = resolve)));
  t.teardown(() => thaw());
  await a.store.repos.executions.insertExecution(newExecution('e-1', 's-1'));
  a.dispatcher.dispatch('s-1');
  while (world.hold.has('e-1')) await sleep(5);
  // B boots now: its recovery finds the session held by A, and its takeover scan starts.
  t.equal(await b.dispatcher.recover(), 1);
  const taken = Date.now();
  // A stops renewing (a stalled process): its lease runs out and B's takeover scan resumes the running execution.
  await a.ownership.close?.();
  await settled(b, 1);
  t.ok(Date.now() - taken >= TTL - 100, 'not before the lease expired');
  t.same(await contents(b), ['e-1 by node-b'], 'B ran the execution from durable state');
  thaw();
  await a.dispatcher.idle();
  t.equal(world.lateWrites.length, 1);
  t.type(world.lateWrites[0], StaleLeaseError, 'A\'s write under its old token is refused');
  t.same(await contents(b), ['e-1 by node-b'], 'nothing of A\'s late run was written');
  const { rows } = await b.store.pool.query(`SELECT token FROM resource_leases WHERE resource = 'session:s-1'`);
  t.equal(rows[0].token, 2, 'the session changed hands once');
});

t.test('a renewal that finds the lease taken aborts the run on the node that lost it', { skip: pg.skip }, async (t) => {
  const { a, b, world } = await twoNodes(t);
  let thaw!: () => void;
  world.hold.set('e-1', new Promise<void>((resolve) => (thaw = resolve)));
  t.teardown(() => thaw());
  await a.store.repos.executions.insertExecution(newExecution('e-1', 's-1'));
  a.dispatcher.dispatch('s-1');
  while (!world.signals.has('e-1')) await sleep(5);
  t.equal(await b.ownership.claim('s-1'), null, 'held by A');
  // A's lease lapses (a pause longer than the TTL) and B takes the session before A's next heartbeat.
  await a.store.pool.query(`UPDATE resource_leases SET expires_at = 0 WHERE resource = 'session:s-1'`);
  const claim = await b.ownership.claim('s-1');
  t.ok(claim, 'B took the expired lease');
  const signal = world.signals.get('e-1')!;
  for (let i = 0; i < 100 && !signal.aborted; i += 1) await sleep(10);
  t.ok(signal.aborted, 'A noticed at its next heartbeat and aborted its run');
  thaw();
  await a.dispatcher.idle();
  t.type(world.lateWrites[0], StaleLeaseError, 'and what it still wrote was refused');
  await claim!.release();
});

t.test('a cancel on another node seizes a live session: the owner is fenced at once, and told by `revoked` without waiting for a renewal', { skip: pg.skip }, async (t) => {
  const { a, b } = await twoNodes(t, { lease: false });
  // A lease far longer than the test: nothing here may come from a renewal or an expiry.
  const own = (node: Node, name: string) => createPostgresSessionOwnership({ pool: node.store.pool, node: name, now: Date.now, ttlMs: 600_000 });
  const [ownA, ownB] = [own(a, 'own-a'), own(b, 'own-b')];
  t.teardown(async () => {
    await ownA.close?.();
    await ownB.close?.();
  });
  const note = (store: PostgresStorage, content: string) => store.writer.submit((tx) => tx.repos.sessions.insertMessage(newMessage(`m-${content}`, 's-1', { content })));

  const claimA = (await ownA.claim('s-1'))!;
  t.equal(await ownB.claim('s-1'), null, 'B cannot claim a session A runs');
  await claimA.run(() => note(a.store, 'A before'));
  const claimB = await ownB.seize!('s-1');
  t.type(await claimA.run(() => note(a.store, 'A after')).catch((e: unknown) => e), StaleLeaseError, "A's next unit is refused");
  await claimB.run(() => note(b.store, 'B cancels'));
  t.notOk(claimA.lost.aborted, 'A has not renewed yet');
  const lost = new Promise((resolve) => claimA.lost.addEventListener('abort', resolve));
  ownA.revoked!('s-1');
  await lost;
  t.pass("told, A's claim is lost at once (its run is aborted by the dispatcher)");

  const again = await ownB.seize!('s-1');
  await again.run(() => note(b.store, 'B again'));
  await again.release();
  const holder = async () => (await a.store.pool.query(`SELECT holder FROM resource_leases WHERE resource = 'session:s-1'`)).rows[0].holder;
  t.equal(await holder(), 'own-b', "seizing a session B already runs shares B's claim; its release leaves it held");
  await claimB.release();
  t.equal(await holder(), null, 'released after the cancel: the next dispatch on any node takes it');
  t.same(await contents(a), ['A before', 'B cancels', 'B again'], 'only the writes of the live holder stand');
});

t.test('admission per node: work accepted on A and started by B leaves A\'s count at the next takeover scan; a booting node counts none of the database\'s queue', { skip: pg.skip }, async (t) => {
  const { a, b } = await twoNodes(t);
  await a.store.repos.executions.insertExecution(newExecution('e-old', 's-1'));
  // A third process runs the session for now (its lease outlives the test's waits).
  const third = createPostgresSessionOwnership({ pool: b.store.pool, node: 'node-c', now: Date.now, ttlMs: 600_000 });
  t.teardown(() => third.close?.());
  const held = (await third.claim('s-1'))!;
  await Promise.all([a.dispatcher.recover(), b.dispatcher.recover()]);
  t.same([a.admission.stats().queued, b.admission.stats().queued], [0, 0], 'N nodes: boot recovery counts no other node\'s queued work');

  // A accepts a message for the session B runs: counted on A, started by B.
  a.admission.admit(1);
  await a.store.repos.executions.insertExecution(newExecution('e-new', 's-1'));
  a.dispatcher.dispatch('s-1');
  await a.dispatcher.idle();
  await sleep(200);
  t.equal(a.admission.stats().queued, 1, 'while it waits in the queue, A counts it (scans bound A by the 2 queued)');
  // B takes the session from the third process (as a cancel would), so A's takeover scan never sees it free.
  await b.ownership.seize!('s-1');
  b.dispatcher.dispatch('s-1');
  await settled(b, 2);
  t.same([a.admission.stats().startedTotal, b.admission.stats().startedTotal], [0, 2], 'B started both');
  for (let i = 0; i < 100 && a.admission.stats().queued > 0; i += 1) await sleep(20);
  t.same([a.admission.stats().queued, b.admission.stats().queued], [0, 0], 'A\'s count fell once nothing was queued in the database; B\'s never went below 0');
});
