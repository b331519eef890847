// Manifest applies at once from two nodes on one PostgreSQL database (issue 16): they answer as if serialized.
/*
 * Each node is its own openPostgresStorage (pool, unit writer), as two `switchyard apply` processes or two workers
 * booting with --manifest are. Without the apply lock both read "not applied yet" and both insert: the second unit
 * failed on a duplicate key, or a ref landed twice. Decision "Manifest applies are serialized on PostgreSQL".
 */
import t, { type Test } from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { openPostgresStorage, type PostgresStorage } from '../../../storage/postgres/storage.js';
import { usePostgres } from '../../helpers/postgres.js';
import { example, testKeyRing } from './manifest-fixtures.js';

const pg = await usePostgres(t);
const TABLES = ['organizations', 'users', 'org_memberships', 'domain_memberships', 'domains', 'automations', 'flow_versions', 'triggers', 'integrations', 'connections', 'knowledge_modules', 'partners', 'manifest_refs', 'api_keys'];

/**
 * Round `round`'s manifest: new organization refs and names, so every round inserts; no passwords (hashing before
 * the unit would stagger the two applies so much that they rarely overlap).
 */
function manifestOf(round: number): any {
  const manifest = example();
  for (const org of manifest.organizations) {
    org.ref = `${org.ref}-r${round}`;
    org.name = `${org.name} ${round}`;
    for (const user of org.users) delete user.password;
  }
  return manifest;
}

async function node(t: Test, url: string, name: string): Promise<PostgresStorage> {
  const store = await openPostgresStorage({ url, applicationName: name });
  t.teardown(() => store.close());
  return store;
}

const counts = async (store: PostgresStorage) =>
  Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, Number((await store.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)] as const)));

/** A key ref maps to its secret (`sv_…`, `svp_…`) when the apply created the key, to its id after: it is left out. */
const entities = (refs: Record<string, string>, other: Record<string, string>) =>
  Object.fromEntries(Object.entries(refs).filter(([ref, value]) => !/^svp?_/.test(value) && !/^svp?_/.test(other[ref] ?? '')));

t.test('two applies at once, three rounds: both succeed with the same ids and leave the rows two applies in a row leave', { skip: pg.skip }, async (t) => {
  const shared = await pg.database(t);
  const [a, b] = [await node(t, shared, 'apply-a'), await node(t, shared, 'apply-b')];
  const serial = await node(t, await pg.database(t), 'apply-serial');
  const deps = { clock: new ManualClock(), keyRing: testKeyRing() };

  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.allSettled([a, b].map((store) => applyManifest(store, manifestOf(round), deps)));
    const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [String(answer.reason)] : []));
    t.same(failures, [], `round ${round}: both applies succeed`);
    const [first, second] = answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.refs : {}));
    t.same(entities(first!, second!), entities(second!, first!), `round ${round}: both answer the same ids`);
    t.ok(Object.keys(entities(first!, second!)).length > 10, `round ${round}: the refs are answered`);

    for (let i = 0; i < 2; i += 1) await applyManifest(serial, manifestOf(round), deps);
    t.same(await counts(a), await counts(serial), `round ${round}: the same rows as two applies one after the other`);
  }
});
