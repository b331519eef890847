// The PostgreSQL schema enforces what SQLite's does (claims, partial uniques, CHECKs, cascades) and stores JSON as decided.
import t from 'tap';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { usePostgres } from '../../helpers/postgres.js';

const pg = await usePostgres(t);
let pool: PostgresPool;

t.before(async () => {
  if (pg.skip) return;
  pool = await connectPostgres({ url: await pg.database(t) });
  await migratePostgres(pool);
  await pool.query(`
    INSERT INTO organizations (id, name, created_at) VALUES ('org', 'Org', 1), ('org2', 'Org 2', 1);
    INSERT INTO domains (id, org_id, name, created_at) VALUES ('dom', 'org', 'Support', 1);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('trg', 'org', 'dom', 'api', 'Fire', 1);
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ('flow', 'org', 'dom', 'flow', 'Flow', 1, 1);`);
});
t.teardown(() => pool?.end());

const run = (id: string, org: string, claimKey: string | null) =>
  pool.query(
    "INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at, claim_key) VALUES ($1, 'trg', $2, 'api', 'accepted', 1, $3)",
    [id, org, claimKey],
  );

t.test('one firing per (organization, claim key) while the claim lives; expired (cleared) keys are reusable', { skip: pg.skip }, async (t) => {
  await run('r1', 'org', 'key-1');
  await t.rejects(run('r2', 'org', 'key-1'), { code: '23505', constraint: 'trigger_runs_claim' });
  await run('r3', 'org2', 'key-1');
  await run('r4', 'org', null);
  await run('r5', 'org', null);
  await pool.query("UPDATE trigger_runs SET claim_key = NULL WHERE id = 'r1'");
  await run('r6', 'org', 'key-1');
  t.pass('the same key in another organization, absent keys, and a swept key all insert');
});

t.test('CHECKs and the partial unique timer index hold', { skip: pg.skip }, async (t) => {
  await t.rejects(run('bad', 'org', null).then(() => pool.query("UPDATE trigger_runs SET outcome = 'exploded' WHERE id = 'bad'")), { code: '23514' });
  await t.rejects(
    pool.query("INSERT INTO knowledge_modules (id, org_id, kind, domain_id, name, created_at) VALUES ('m', 'org', 'domain', NULL, 'M', 1)"),
    { code: '23514' },
    'a domain module needs its domain',
  );
  const timer = (id: string, fired: number | null) =>
    pool.query("INSERT INTO timers (id, kind, target_id, due_at, created_at, fired_at) VALUES ($1, 'cron', 'trg', 10, 1, $2)", [id, fired]);
  await timer('t1', null);
  await t.rejects(timer('t2', null), { code: '23505' }, 'one pending timer per target');
  await timer('t3', 5);
});

t.test('deleting an organization cascades to its rows, as on SQLite', { skip: pg.skip }, async (t) => {
  await pool.query("INSERT INTO organizations (id, name, created_at) VALUES ('gone', 'Gone', 1); INSERT INTO domains (id, org_id, name, created_at) VALUES ('gone-dom', 'gone', 'D', 1)");
  await pool.query("DELETE FROM organizations WHERE id = 'gone'");
  const { rows } = await pool.query("SELECT count(*) AS n FROM domains WHERE org_id = 'gone'");
  t.equal(rows[0].n, 0);
});

t.test('JSON storage: json keeps a document as written, jsonb holds state, text keeps replayed bytes exact', { skip: pg.skip }, async (t) => {
  const definition = '{"steps":[{"id":"b"},{"id":"a"}],"output":"x","inputs":{"zeta":1,"alpha":2}}';
  await pool.query("INSERT INTO flow_versions (automation_id, version, definition, created_at) VALUES ('flow', 1, $1, 1)", [definition]);
  const flow = await pool.query('SELECT definition, definition::text AS raw FROM flow_versions');
  t.same(Object.keys(flow.rows[0].definition.inputs), ['zeta', 'alpha'], 'parsed on read, key order as the author wrote it');
  t.equal(flow.rows[0].raw, definition);
  await pool.query(`UPDATE trigger_runs SET results = '[{"status":"started","automationId":"flow"}]', claim_response = '{"runId": "r6" }' WHERE id = 'r6'`);
  const r = await pool.query("SELECT results, claim_response FROM trigger_runs WHERE id = 'r6'");
  t.same(r.rows[0].results, [{ automationId: 'flow', status: 'started' }], 'jsonb reads as parsed JSON');
  t.equal(r.rows[0].claim_response, '{"runId": "r6" }', 'the stored 202 body replays byte for byte');
  await t.rejects(pool.query("UPDATE trigger_runs SET results = 'not json' WHERE id = 'r6'"), { code: '22P02' }, 'jsonb refuses what is not JSON');
  // A user's text may contain NUL: json columns (the pending plan carries the fire's input) keep it, jsonb could not.
  await pool.query("UPDATE trigger_runs SET pending = $1 WHERE id = 'r6'", [JSON.stringify([{ input: { note: 'a\u0000b' } }])]);
  const pending = await pool.query("SELECT pending FROM trigger_runs WHERE id = 'r6'");
  t.same(pending.rows[0].pending, [{ input: { note: 'a\u0000b' } }]);
  await t.rejects(pool.query(`SELECT '"a\\u0000b"'::jsonb`), { code: '22P05' }, 'what jsonb would have refused');
});

t.test('knowledge search: published text only, stemmed, title ranked above body', { skip: pg.skip }, async (t) => {
  await pool.query(`INSERT INTO knowledge_bases (id, org_id, name, created_at) VALUES ('kb', 'org', 'KB', 1);
    INSERT INTO articles (id, base_id, org_id, title, draft_body, created_at, updated_at) VALUES
      ('in-title', 'kb', 'org', 'Refund policy', 'How money goes back.', 1, 1),
      ('in-body', 'kb', 'org', 'Shipping', 'Damaged parcels get refunded.', 1, 1),
      ('draft', 'kb', 'org', 'Refunds draft', 'Refunds, unpublished.', 1, 1)`);
  // What publish writes (the driver's repository will own this statement).
  await pool.query(`UPDATE articles SET published_body = draft_body, published_at = 2,
      published_search = setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', draft_body), 'B')
    WHERE id IN ('in-title', 'in-body')`);
  const { rows } = await pool.query(
    `SELECT id FROM articles, to_tsquery('english', 'refunds') q
      WHERE published_search @@ q AND org_id = 'org' ORDER BY ts_rank('{0.1, 0.2, 0.25, 1.0}', published_search, q) DESC, id`,
  );
  t.same(rows.map((r) => r.id), ['in-title', 'in-body']);
  await t.rejects(pool.query("UPDATE articles SET published_search = to_tsvector('x') WHERE id = 'draft'"), { code: '23514' }, 'only a published article is indexed');
});
