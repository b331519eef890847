// PostgreSQL only: fire claims, subscriptions and timers under concurrent transactions, and the scheduler's queries' plans.
import t, { type Test } from 'tap';
import { isUniqueViolation } from '../../../storage/port/errors.js';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import type { Queryable } from '../../../storage/postgres/queryable.js';
import { createPostgresRepositories } from '../../../storage/postgres/repos/index.js';
import { createPostgresFireClaimsRepo } from '../../../storage/postgres/repos/fire-claims.repo.js';
import { createPostgresTimersRepo } from '../../../storage/postgres/repos/timers.repo.js';
import type { NewTriggerRun } from '../../../storage/records/trigger-runs.js';
import { isClaimConflict } from '../../../storage/port/errors.js';
import { usePostgres } from '../../helpers/postgres.js';
import { lockWaiters, transaction } from '../../helpers/postgres-races.js';

const pg = await usePostgres(t);

/** A migrated database with org-1, dom-1, agents a-1 and a-2 and trigger trg-1. */
async function seeded(t: Test): Promise<PostgresPool> {
  const pool = await connectPostgres({ url: await pg.database(t), applicationName: 'switchyard-trigger-races' });
  t.teardown(() => pool.end());
  await migratePostgres(pool);
  await pool.query(`
    INSERT INTO organizations (id, name, created_at) VALUES ('org-1', 'Org', 1);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('dom-1', 'org-1', 'Support', 1);
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES
      ('a-1', 'org-1', 'dom-1', 'agent', 'A1', 1, 1), ('a-2', 'org-1', 'dom-1', 'agent', 'A2', 1, 1);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('trg-1', 'org-1', 'dom-1', 'api', 'Fire', 1);`);
  return pool;
}

const keyedRun = (id: string, key: string): NewTriggerRun => ({
  id, triggerId: 'trg-1', orgId: 'org-1', source: 'api', firedBy: null, outcome: 'accepted', unusedCredentialIntegrations: [],
  idempotencyKey: key, createdAt: 1, results: [], claim: { key, fingerprint: Buffer.from([1]), response: `{"runId":"${id}"}`, expiresAt: 100 },
});

t.test('two nodes claiming one key: the second waits on the unique index, then fails as a claim conflict; exactly one run', { skip: pg.skip }, async (t) => {
  const pool = await seeded(t);
  const first = await transaction(t, pool);
  const second = await transaction(t, pool);
  await first.repos.triggerRuns.insertRun(keyedRun('run-1', 'key-1'));
  const racing = second.repos.triggerRuns.insertRun(keyedRun('run-2', 'key-1')).catch((e: unknown) => e);
  await lockWaiters(pool, 1);
  await first.end('COMMIT');
  const error = await racing;
  t.ok(isClaimConflict(error), 'the fire service answers it as a replay of run-1');
  t.ok(isUniqueViolation(error));
  await second.end('ROLLBACK');
  const { rows } = await pool.query("SELECT id FROM trigger_runs WHERE claim_key = 'key-1'");
  t.strictSame(rows, [{ id: 'run-1' }]);

  // The holder rolling back gives the key to the waiter: still one firing.
  const third = await transaction(t, pool);
  const fourth = await transaction(t, pool);
  await third.repos.triggerRuns.insertRun(keyedRun('run-3', 'key-2'));
  const waiting = fourth.repos.triggerRuns.insertRun(keyedRun('run-4', 'key-2'));
  await lockWaiters(pool, 1);
  await third.end('ROLLBACK');
  await waiting;
  await fourth.end('COMMIT');
  t.equal((await createPostgresFireClaimsRepo(pool).get('org-1', 'key-2'))!.runId, 'run-4');
});

t.test('racing subscription replacements: the later one wins whole, never a union of both lists', { skip: pg.skip }, async (t) => {
  const pool = await seeded(t);
  await pool.query("INSERT INTO subscriptions (trigger_id, automation_id, position) VALUES ('trg-1', 'a-1', 0)");
  const first = await transaction(t, pool);
  const second = await transaction(t, pool);
  await first.repos.triggers.replaceSubscriptions('trg-1', ['a-2']);
  const later = second.repos.triggers.replaceSubscriptions('trg-1', ['a-1']);
  await lockWaiters(pool, 1);
  await first.end('COMMIT');
  await later;
  await second.end('COMMIT');
  t.strictSame((await createPostgresRepositories(pool).triggers.subscribers('trg-1')).map((s) => s.automationId), ['a-1']);
});

t.test('racing timer replacements of one deadline: the later one wins, no unique violation', { skip: pg.skip }, async (t) => {
  const pool = await seeded(t);
  const timer = (id: string, dueAt: number) => ({ id, kind: 'deadline', targetId: 'ses-1', dueAt, payload: {}, createdAt: 1 });
  await createPostgresTimersRepo(pool).replace(timer('t-0', 10));
  const first = await transaction(t, pool);
  const second = await transaction(t, pool);
  await first.repos.timers.replace(timer('t-1', 20));
  const later = second.repos.timers.replace(timer('t-2', 30));
  await lockWaiters(pool, 1);
  await first.end('COMMIT');
  await later;
  await second.end('COMMIT');
  t.match(await createPostgresTimersRepo(pool).pending('deadline', 'ses-1'), { id: 't-2', dueAt: 30 });
  const { rows } = await pool.query('SELECT count(*) AS n FROM timers');
  t.strictSame(rows, [{ n: 1 }], 'one timer for the target');
});

t.test('claim sweepers on two nodes take disjoint claims and count each once', { skip: pg.skip }, async (t) => {
  const pool = await seeded(t);
  for (let i = 0; i < 6; i++) await createPostgresRepositories(pool).triggerRuns.insertRun({ ...keyedRun(`run-${i}`, `key-${i}`), createdAt: i });
  const first = await transaction(t, pool);
  const second = await transaction(t, pool);
  const a = await first.repos.fireClaims.sweepExpired(1_000, 4);
  const b = await second.repos.fireClaims.sweepExpired(1_000, 4);
  t.same([a, b], [4, 2], 'the second skips the rows the first holds instead of waiting for them');
  await first.end('COMMIT');
  await second.end('COMMIT');
  t.equal(await createPostgresFireClaimsRepo(pool).count(), 0);
});

/** Runs `call` over a Queryable that records each statement, then returns every recorded statement's plan as text. */
async function plansOf(pool: PostgresPool, call: (q: Queryable) => Promise<unknown>): Promise<string[]> {
  const seen: Array<{ text: string; values: unknown[] }> = [];
  const recording = { query: (text: string, values: unknown[]) => (seen.push({ text, values }), pool.query(text, values)) } as unknown as Queryable;
  await call(recording);
  const plans: string[] = [];
  for (const { text, values } of seen) {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return plans;
}

t.test('the scheduler\'s due and earliest queries and the claim expiry read indexes over thousands of rows', { skip: pg.skip }, async (t) => {
  const pool = await seeded(t);
  // 6,000 timers of two kinds, two thirds already fired (as after a day of deadlines); 3,000 runs, half holding a claim.
  await pool.query(`
    INSERT INTO timers (id, kind, target_id, due_at, payload, created_at, fired_at)
      SELECT 't' || i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'g' || i, 1000 + i, '{}', 0, CASE WHEN i % 3 = 0 THEN NULL ELSE 1 END
      FROM generate_series(1, 6000) i;
    INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at, claim_key, claim_fingerprint, claim_response, claim_expires_at)
      SELECT 'r' || i, 'trg-1', 'org-1', 'api', 'accepted', i, CASE WHEN i % 2 = 0 THEN 'k' || i END, '\\x00', '{}', 5000 + i
      FROM generate_series(1, 3000) i;
    ANALYZE timers; ANALYZE trigger_runs;`);
  const timers = await plansOf(pool, async (q) => {
    const repo = createPostgresTimersRepo(q);
    await repo.due(1_100, ['a', 'b'], ['t3'], 100);
    await repo.nextDueAt(['a'], ['t6'], 1_100);
    await repo.claimDue({ owner: 'n', now: 1_100, expiresAt: 2_000, kinds: ['a', 'b'], excludeIds: ['t3'], limit: 50 });
  });
  const claims = await plansOf(pool, async (q) => {
    const repo = createPostgresFireClaimsRepo(q);
    await repo.earliestExpiry();
    await repo.sweepExpired(5_100, 50);
  });
  for (const plan of [...timers, ...claims]) {
    t.notMatch(plan, /Seq Scan/, `no sequential scan:\n${plan}`);
  }
  t.match(timers[0], /Index Scan using timers_due/, 'due: timers_due, in due order');
  t.match(timers[1], /Index Scan using timers_due/, 'earliest: timers_due');
  t.match(timers[1], /timers_claims/, 'earliest claim lapse: timers_claims');
  t.match(timers[2], /Index Scan using timers_due/, 'claim: timers_due, in due order');
  t.match(timers[2], /LockRows/, 'claim: locks (skipping locked rows) what it takes');
  t.match(claims[0], /Index Only Scan using trigger_runs_claim_expiry|Index Scan using trigger_runs_claim_expiry/, 'claim expiry: its partial index');
  t.match(claims[1], /trigger_runs_claim_expiry/, 'sweep: its partial index');
  t.comment(['due:', ...timers.slice(0, 1), 'earliest:', ...timers.slice(1), 'claim expiry:', ...claims].join('\n'));
});
