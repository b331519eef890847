// Seeds N completed keyed fires (claims, Run history, sessions, executions) so a bench can show accept throughput
// does not decay with history (issue 12 item 4: 1,000,000 stored fires within 10 % of an empty database).
/*
 * All in SQL (INSERT … SELECT over a counter): seeding row by row from JavaScript left the server's heap full of
 * garbage that the first seconds of load paid for (GC 839 µs per fire at first, docs/decisions.md "Accept throughput
 * over 1,000,000 stored fires"). Ids are UUIDv7-shaped and time-ordered like newId()'s, derived from the fire's number.
 */
import { onSqlite, type Service } from '../http/service.js';

/** Rows go in transactions of this many fires: large enough to amortize commits, small enough to keep the WAL bounded. */
const CHUNK = 20_000;

/** A UUIDv7-shaped id for fire i at time `at` (SQL expression); `kind` keeps runs, sessions and executions apart. */
const idOf = (kind: number): string => `printf('%08x-%04x-7%03x-8000-%012x', at >> 16, at & 65535, ${kind}, i)`;

export function seedFireHistory(running: Service, refs: Record<string, string>, fires: number): { seconds: number; rows: number } {
  const started = performance.now();
  // SQL on the SQLite handle: this seeding is for the SQLite bench.
  const service = onSqlite(running);
  const { db } = service.store;
  const trigger = service.store.repos.triggers.trigger(refs['new-lead']!);
  if (trigger === undefined) throw new Error('the workspace has no new-lead trigger');
  const subscribers = service.store.repos.triggers.subscribers(trigger.id);
  const automations = subscribers.map((s) => service.store.repos.automations.automation(s.automationId)!);
  // Fire i of [@from, @to) was accepted at @now - (@fires - i): the claims are recent (not expired), a day of traffic.
  // JavaScript numbers bind as REAL: cast, or 'seed-' || i would read 'seed-1.0'.
  const counter = `WITH RECURSIVE n(i) AS (SELECT CAST(@from AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @to),
    f(i, at) AS (SELECT i, CAST(@now - (@fires - i) AS INTEGER) FROM n)`;
  const results = automations
    .map((a, p) => `json_object('automationId', '${a.id}', 'position', ${p}, 'status', 'started', 'code', NULL, 'reason', NULL, 'sessionId', ${idOf(1 + p)})`)
    .join(', ');
  // The claim lives on its run (claim_* columns, unique index trigger_runs_claim).
  const runs = db.prepare(
    `INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, idempotency_key, created_at, results,
       claim_key, claim_fingerprint, claim_response, claim_expires_at)
     ${counter} SELECT ${idOf(0)}, @trigger, @org, 'api', @user, 'succeeded', 'seed-' || i, at, json_array(${results}),
       'seed-' || i, randomblob(32), '{}', at + 86400000 FROM f`,
  );
  const sessions = automations.map((a, p) =>
    db.prepare(
      `INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, created_by, origin, trigger_run_id, status, created_at, updated_at)
       ${counter} SELECT ${idOf(1 + p)}, @org, '${a.domainId}', '${a.id}', 1, 'domain', @user, 'trigger', ${idOf(0)}, 'active', at, at FROM f`,
    ),
  );
  const executions = automations.map((_a, p) =>
    db.prepare(
      `INSERT INTO executions (id, session_id, position, status, created_by, created_at, updated_at, settled_at)
       ${counter} SELECT ${idOf(0x100 + p)}, ${idOf(1 + p)}, 1, 'completed', @user, at, at, at FROM f`,
    ),
  );
  const now = Date.now();
  let rows = 0;
  const chunk = db.transaction((from: number, to: number) => {
    const args = { from, to, fires, now, trigger: trigger.id, org: trigger.orgId, user: refs.bob! };
    rows += runs.run(args).changes;
    for (const statement of [...sessions, ...executions]) rows += statement.run(args).changes;
  });
  for (let from = 0; from < fires; from += CHUNK) chunk(from, Math.min(fires, from + CHUNK));
  // No ANALYZE: the service never runs it, so a database that grew over a day has no statistics. With them, this
  // SQLite build (SQLITE_ENABLE_STAT4) re-plans every statement whose bound value meets an indexed column at each new
  // binding: the 1M row once measured +25-35 % server CPU per fire for that alone (docs/decisions.md, "Accept
  // throughput over a long history").
  service.store.checkpoint();
  return { seconds: (performance.now() - started) / 1000, rows };
}
