// Hot-path statements stay O(log n): EXPLAIN QUERY PLAN of every statement a hot repository prepares uses an index.
/*
 * Issue 12: the scheduler's due-timer query once scanned every pending timer (the planner chose timers_target),
 * so each commit cost 21 ms at 100,000 pending timers. This test prepares each hot repository over a recording
 * handle, then asks SQLite for the plan of every statement it prepared, on a database with enough rows and
 * statistics (ANALYZE) that the planner's choice is the one production gets.
 */
import t from 'tap';
import type { SqliteDatabase } from '../../storage/database.js';
import { openStore } from '../../storage/store.js';
import { createTimersRepo } from '../../storage/repos/timers.repo.js';
import { createFireClaimsRepo } from '../../storage/repos/fire-claims.repo.js';
import { createTriggerRunsRepo } from '../../storage/repos/trigger-runs.repo.js';
import { createSessionsRepo } from '../../storage/repos/sessions.repo.js';
import { createSessionEventsRepo } from '../../storage/repos/session-events.repo.js';
import { createSessionListRepo } from '../../storage/repos/session-list.repo.js';
import { createCredentialsRepo } from '../../storage/repos/credentials.repo.js';
import { createTriggersRepo } from '../../storage/repos/triggers.repo.js';
import { createAutomationsRepo } from '../../storage/repos/automations.repo.js';

/** Runs `create` over a handle that records the SQL of every statement it prepares. */
function preparedBy(db: SqliteDatabase, create: (db: SqliteDatabase) => unknown): string[] {
  const sources: string[] = [];
  const recording = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') return (sql: string) => (sources.push(sql), target.prepare(sql));
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  create(recording);
  return sources;
}

/** The plan's detail lines; parameters are bound as NULL (only the plan is read). */
function planOf(db: SqliteDatabase, sql: string): string[] {
  const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const named = [...new Set(sql.match(/@\w+/g) ?? [])].map((name) => name.slice(1));
  const positional = (sql.match(/\?/g) ?? []).length;
  const args: unknown[] = named.length > 0 ? [Object.fromEntries(named.map((n) => [n, null]))] : Array.from({ length: positional }, () => null);
  return (statement.all(...args) as Array<{ detail: string }>).map((row) => row.detail);
}

/** A full scan of a stored table (scans of json_each's virtual table are over the bound JSON, not the data). */
const fullScan = (detail: string): boolean => /^SCAN (?!json_each|CONSTANT ROW)\w+/.test(detail) && !/USING (COVERING )?INDEX/.test(detail);

t.test('every statement of the timers, fire-claims and session-events repositories is answered through an index', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const { db } = store;
  const timer = db.prepare("INSERT INTO timers (id, kind, target_id, due_at, payload, created_at) VALUES (?, ?, ?, ?, '{}', 0)");
  seedTrigger(db);
  // Claims live on their runs (trigger_runs.claim_*); half the runs hold one, as after a day of mixed traffic.
  const run = db.prepare(
    `INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at, claim_key, claim_fingerprint, claim_response, claim_expires_at)
     VALUES (?, 'tr', 'org', 'api', 'succeeded', ?, ?, x'00', '{}', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < 20_000; i++) {
      timer.run(`t${i}`, i % 2 === 0 ? 'a' : 'b', `g${i}`, 1_000 + i);
      const keyed = i % 2 === 0;
      run.run(`r${i}`, i, keyed ? `k${i}` : null, keyed ? 86_400_000 + i : null);
    }
  })();
  db.exec('ANALYZE');

  const sources = [createTimersRepo, createFireClaimsRepo, createSessionEventsRepo].flatMap((create) => preparedBy(db, create));
  t.ok(sources.length >= 15, `recorded ${sources.length} statements`);
  for (const sql of sources) {
    if (/SELECT COUNT\(\*\) FROM trigger_runs WHERE claim_key IS NOT NULL$/.test(sql.trim())) continue; // a test helper, never on a request path
    const plan = planOf(db, sql);
    t.notOk(plan.some(fullScan), `${sql.replace(/\s+/g, ' ').slice(0, 90)}… -> ${plan.join(' | ')}`);
  }
});

t.test('the due-timer queries walk timers_due, and the claim sweep walks the expiry index', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const sources = preparedBy(store.db, createTimersRepo).concat(preparedBy(store.db, createFireClaimsRepo));
  const due = sources.filter((sql) => /FROM timers/.test(sql) && /due_at/.test(sql) && /SELECT/.test(sql));
  t.equal(due.length, 3, 'due, claim and next-due');
  for (const sql of due) t.match(planOf(store.db, sql).join(' | '), /USING INDEX timers_due/);
  const nextDue = due.find((sql) => /MIN\(claim_expires_at\)/.test(sql));
  t.match(planOf(store.db, nextDue!).join(' | '), /USING INDEX timers_claims/, 'next-due: a held claim\'s lapse through timers_claims');
  const sweep = sources.find((sql) => /UPDATE trigger_runs SET .* WHERE rowid IN/s.test(sql));
  t.match(planOf(store.db, sweep!).join(' | '), /USING (COVERING )?INDEX trigger_runs_claim_expiry/);
  const claim = sources.find((sql) => /FROM trigger_runs WHERE org_id = \? AND claim_key = \?/.test(sql));
  t.match(planOf(store.db, claim!).join(' | '), /USING INDEX trigger_runs_claim/, 'a claim is a point read on the unique claim index');
});

t.test('boot finds accepts not yet materialized through partial indexes: O(pending), not O(history)', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const sources = preparedBy(store.db, createTriggerRunsRepo).concat(preparedBy(store.db, createSessionsRepo));
  const runs = sources.find((sql) => /FROM trigger_runs .*pending IS NOT NULL/s.test(sql));
  t.match(planOf(store.db, runs!).join(' | '), /SCAN trigger_runs USING INDEX trigger_runs_pending/);
  const sessions = sources.find((sql) => /FROM sessions .*pending IS NOT NULL/s.test(sql));
  t.match(planOf(store.db, sessions!).join(' | '), /SCAN sessions USING INDEX sessions_pending/);
});

/** An organization, domain and API trigger ('org', 'dom', 'tr') for trigger_runs rows to point at. */
function seedTrigger(db: SqliteDatabase): void {
  db.exec(`
    INSERT INTO organizations (id, name, created_at) VALUES ('org', 'O', 0);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('dom', 'org', 'D', 0);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('tr', 'org', 'dom', 'api', 'T', 0);
  `);
}

t.test('the session list and the paged session reads range-scan their indexes: no table scan, no sort', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const { db } = store;
  db.exec(`
    INSERT INTO organizations (id, name, created_at) VALUES ('o', 'O', 0);
    INSERT INTO users (id, email, name, created_at) VALUES ('u', 'u@o.test', 'U', 0);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('d1', 'o', 'D1', 0), ('d2', 'o', 'D2', 0);
    INSERT INTO domain_memberships (domain_id, user_id, role, created_at) VALUES ('d1', 'u', 'owner', 0);
  `);
  const automation = db.prepare("INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES (?, 'o', ?, 'agent', ?, 0, 0)");
  const session = db.prepare(
    `INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_by, status, created_at, updated_at)
     VALUES (?, 'o', ?, ?, ?, 'u', ?, ?, ?)`,
  );
  // Other people's memberships, so the planner's statistics are those of an organization, not of a single row.
  const person = db.prepare("INSERT INTO users (id, email, name, created_at) VALUES (?, ?, 'P', 0)");
  const member = db.prepare("INSERT INTO domain_memberships (domain_id, user_id, role, created_at) VALUES (?, ?, 'viewer', 0)");
  db.transaction(() => {
    for (let p = 0; p < 500; p++) {
      person.run(`p${p}`, `p${p}@o.test`);
      member.run(p % 2 === 0 ? 'd1' : 'd2', `p${p}`);
    }
    for (let a = 0; a < 20; a++) automation.run(`a${a}`, a % 2 === 0 ? 'd1' : 'd2', `A${a}`);
    for (let i = 0; i < 20_000; i++) {
      session.run(`s${i}`, i % 2 === 0 ? 'd1' : 'd2', `a${i % 20}`, i % 10 === 0 ? 'personal' : 'domain', i % 7 === 0 ? 'archived' : 'active', i, i);
    }
  })();
  db.exec('ANALYZE');

  const sources = preparedBy(db, createSessionListRepo);
  const expected: Array<[RegExp, RegExp]> = [
    [/WHERE domain_id = @source AND visibility = 'domain'/, /USING INDEX sessions_domain_created/],
    [/WHERE created_by = @source AND visibility = 'personal'/, /USING INDEX sessions_personal_created/],
    [/WHERE created_by = @source AND visibility = 'domain'/, /USING INDEX sessions_domain_creator/],
    [/WHERE automation_id = @source/, /USING INDEX sessions_automation_created/],
    [/FROM tool_calls WHERE session_id/, /USING INDEX tool_calls_session/],
  ];
  for (const [statement, index] of expected) {
    const sql = sources.find((s) => statement.test(s));
    t.ok(sql, `prepared: ${statement.source}`);
    const plan = planOf(db, sql!).join(' | ');
    t.match(plan, index, plan);
    t.notMatch(plan, /TEMP B-TREE/, 'already in order: no sort of the whole source');
  }
  for (const sql of sources) {
    const plan = planOf(db, sql);
    t.notOk(plan.some(fullScan), `${sql.replace(/\s+/g, ' ').slice(0, 90)}… -> ${plan.join(' | ')}`);
  }
});

t.test('the management lists and the API key statements (the key check, last-use writes) are answered through an index', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const { db } = store;
  const sources = [createCredentialsRepo, createTriggersRepo, createAutomationsRepo].flatMap((create) => preparedBy(db, create));
  const lists = sources.filter((sql) => /\(created_at, id\) >|SET last_used_at|k\.key_hash/.test(sql));
  t.equal(lists.length, 6, 'two key pages, the trigger and automation pages, the key check, the last-use write');
  for (const sql of sources.filter((s) => /\(created_at, id\) >|last_used_at|key_hash = \?/.test(s))) {
    const plan = planOf(db, sql);
    t.notOk(plan.some(fullScan), `${sql.replace(/\s+/g, ' ').slice(0, 90)}… -> ${plan.join(' | ')}`);
  }
});
