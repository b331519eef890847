// Every statement the accept path and the scheduler run, recorded while they run, is answered through an index (issue 12 item 4).
/*
 * query-plans.test.ts checks what chosen repositories prepare; this one records what a real service executes: a
 * keyed fire over HTTP (key check, plan reads, claim verdict, the run INSERT), its replay, the materializer's bulk
 * writes, the scheduler's due scan and the claim sweep it fires. Each recorded statement's EXPLAIN QUERY PLAN, on
 * the same database holding a keyed-fire history, without statistics (as the service runs) and with them (after an
 * ANALYZE), must not scan a stored table: no cost that grows with history.
 */
import t from 'tap';
import { onSqlite } from '../../http/service.js';
import { seedFireHistory } from '../../bench/history-seed.js';
import { startFireServer } from '../http/triggers/fire-server.js';
import { sqliteOnly } from '../helpers/server.js';
import { openDatabase, type SqliteDatabase } from '../../storage/database.js';

const HISTORY = 5_000;
const DAY_MS = 86_400_000;

type Method = 'run' | 'get' | 'all' | 'iterate';

/** Records the SQL of every statement executed on any better-sqlite3 handle while `recording` is on. */
function statementRecorder(t: { teardown(fn: () => void): void }): { recording: boolean; sources: Set<string> } {
  const recorder = { recording: false, sources: new Set<string>() };
  // Every statement shares one prototype: patching it reaches the statements the repositories prepared at start-up.
  const probe = openDatabase(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<Method, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = proto[method];
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (recorder.recording) recorder.sources.add(this.source);
      return original.apply(this, args);
    };
    t.teardown(() => void (proto[method] = original));
  }
  return recorder;
}

/** A full scan of a stored table (json_each's virtual table and constant rows scan the bound values, not the data). */
const fullScan = (detail: string): boolean => /^SCAN (?!json_each|CONSTANT ROW)\w+/.test(detail) && !/USING (COVERING )?INDEX|VIRTUAL TABLE/.test(detail);

/**
 * Tables whose foreign keys point at `table`. An INSERT … SELECT into a parent table shows a SCAN of each child in
 * its plan: SQLite's check for child rows waiting for that parent, which it skips at run time unless a deferred
 * foreign-key violation is pending (OP_FkIfZero); none is, so those lines are not a cost of the statement.
 */
function childTables(db: SqliteDatabase, table: string): Set<string> {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  return new Set(tables.filter((child) => (db.pragma(`foreign_key_list(${child})`) as Array<{ table: string }>).some((fk) => fk.table === table)));
}

/** The plan lines that read stored rows in full, less an INSERT's skipped child checks. */
function scansOf(db: SqliteDatabase, sql: string, plan: string[]): string[] {
  const inserted = /^\s*INSERT INTO (\w+)/i.exec(sql)?.[1];
  const children = inserted === undefined ? new Set<string>() : childTables(db, inserted);
  return plan.filter((detail) => fullScan(detail) && !children.has(/^SCAN (\w+)/.exec(detail)![1]!));
}

t.test('the accept path and the scheduler run only statements that use an index, over a stored history', { skip: sqliteOnly('EXPLAIN QUERY PLAN of the SQLite statements') }, async (t) => {
  const recorder = statementRecorder(t);
  const f = await startFireServer(t);
  // The accept path only: accepted sessions stay queued (their turns are not accept work).
  f.server.service.services.sessions.dispatcher.dispatch = () => undefined;
  const { db } = onSqlite(f.server.service).store;
  seedFireHistory(f.server.service, f.refs, HISTORY);
  t.equal((db.prepare('SELECT COUNT(*) AS n FROM trigger_runs WHERE claim_key IS NOT NULL').get() as { n: number }).n, HISTORY, 'history seeded');
  // The bench's history is the service's own: no statistics (with STAT4 samples SQLite re-plans hot statements per binding).
  t.equal(db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'").pluck().get(), 0, 'the seed runs no ANALYZE');

  recorder.recording = true;
  const body = { triggerId: f.refs['new-lead'], input: { id: 'c-1' } };
  const first = await f.fire('bob', body, { 'idempotency-key': 'plan-1' });
  t.equal(first.status, 202, 'keyed fire accepted');
  t.equal((await f.fire('bob', body, { 'idempotency-key': 'plan-1' })).status, 202, 'its replay');
  t.equal((await f.fire('bob', body, { 'idempotency-key': 'plan-2' })).status, 202, 'a second keyed fire (the sweep is known armed)');
  await f.written();
  // A day later the sweep timer is due: the scheduler's due scan claims it and the sweep clears expired claims.
  f.server.clock.advance(DAY_MS + 60_000);
  // drain() delivers what is due now and waits for the deliveries (the sweep's unit) to finish: no reliance on when
  // the scheduler's own timer fires, which a busy machine delays.
  await f.server.service.services.scheduler.drain();
  recorder.recording = false;

  const sources = [...recorder.sources];
  const expected: Array<[string, RegExp]> = [
    ['the key check', /key_hash/],
    ['the claim verdict', /FROM trigger_runs WHERE org_id = \? AND claim_key = \?/],
    ['the run insert', /INSERT INTO trigger_runs/],
    ['the materializer: sessions', /INSERT INTO sessions/],
    ['the materializer: executions', /INSERT INTO executions/],
    ['the scheduler: due timers', /FROM timers/],
    ['the claim sweep', /UPDATE trigger_runs SET .*claim/s],
  ];
  for (const [what, pattern] of expected) t.ok(sources.some((sql) => pattern.test(sql)), `ran ${what}`);
  // As the service leaves it (it never runs ANALYZE), then as after an operator's ANALYZE (statistics steer the planner).
  for (const statistics of ['none', 'ANALYZE'] as const) {
    if (statistics === 'ANALYZE') {
      // Pending timers of a service at work (session deadlines and the like), so timers' statistics are not those of one row.
      db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
        INSERT INTO timers (id, kind, target_id, due_at, payload, created_at) SELECT 'pending-' || i, 'deadline', 'target-' || i, ${Date.UTC(2030, 0, 1)} + i, '{}', 0 FROM n`);
      db.exec('ANALYZE');
    }
    for (const sql of sources) {
      if (/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA)/i.test(sql)) continue;
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...bindNulls(sql)) as Array<{ detail: string }>).map((row) => row.detail);
      t.same(scansOf(db, sql, plan), [], `statistics ${statistics}: ${sql.replace(/\s+/g, ' ').slice(0, 100)}… -> ${plan.join(' | ')}`);
    }
  }
});

/** NULL for every parameter: only the plan is read. */
function bindNulls(sql: string): unknown[] {
  const named = [...new Set(sql.match(/[@:$]\w+/g) ?? [])].map((name) => name.slice(1));
  if (named.length > 0) return [Object.fromEntries(named.map((n) => [n, null]))];
  return Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
}
