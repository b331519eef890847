// openPostgresStorage: the storage port on a real server — migrated on open, units commit atomically, reads see commits, close, refusals.
import t from 'tap';
import { usePostgres } from '../../helpers/postgres.js';
import { connectPostgres } from '../../../storage/postgres/connection.js';
import { FutureSchemaError, schemaVersion } from '../../../storage/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../../storage/postgres/migrations/index.js';
import { openPostgresStorage } from '../../../storage/postgres/storage.js';
import { PostgresUnreachableError } from '../../../storage/postgres/connection.js';
import type { Organization } from '../../../storage/records/tenancy.js';

const pg = await usePostgres(t);
const known = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version));

const org = (id: string): Organization => ({
  id, name: `Org ${id}`, partnerId: null, clientSegment: null, directLoginDisabled: false, rolloutFlags: { beta: true }, createdAt: 1_700_000_000_000, suspendedAt: null,
});

t.test('opens migrated; a unit commits through tx.repos and publishes after commit; a failing unit leaves nothing', { skip: pg.skip }, async (t) => {
  const storage = await openPostgresStorage({ url: await pg.database(t), applicationName: 'switchyard-storage-test' });
  t.teardown(() => storage.close());
  t.equal(await schemaVersion(storage.pool), known, 'every migration applied on open');

  const published: string[] = [];
  const id = await storage.writer.submit(async (tx) => {
    await tx.repos.tenancy.insertOrganization(org('o-1'));
    tx.afterCommit(() => published.push('o-1'));
    return 'o-1';
  });
  t.equal(id, 'o-1');
  t.same(published, ['o-1'], 'the outbox ran once the unit committed');
  t.same((await storage.repos.tenancy.organization('o-1'))?.rolloutFlags, { beta: true }, 'a read outside the unit sees the commit');

  const failed = storage.writer.submit(async (tx) => {
    await tx.repos.tenancy.insertOrganization(org('o-2'));
    tx.afterCommit(() => published.push('o-2'));
    throw new Error('refused after writing');
  });
  const kept = storage.writer.submit(async (tx) => tx.repos.tenancy.insertOrganization(org('o-3')));
  await t.rejects(failed, /refused after writing/);
  await kept;
  t.equal(await storage.repos.tenancy.organization('o-2'), undefined, 'the failing unit rolled back');
  t.ok(await storage.repos.tenancy.organization('o-3'), 'its neighbour in the batch committed');
  t.same(published, ['o-1'], 'a rolled-back unit publishes nothing');
  t.equal(storage.cache.cached((x: string) => `${x}!`, (x) => x)('read'), 'read!', 'reads pass through: no cache on PostgreSQL');
});

t.test('close commits what is queued, then ends the pool (and is idempotent)', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const storage = await openPostgresStorage({ url });
  const queued = storage.writer.submit(async (tx) => tx.repos.tenancy.insertOrganization(org('o-q')));
  await Promise.all([storage.close(), storage.close()]);
  await queued;
  await t.rejects(Promise.resolve(storage.repos.tenancy.organization('o-q')), /pool/i, 'the pool is ended');
  const check = await connectPostgres({ url });
  t.teardown(() => check.end());
  t.equal((await check.query('SELECT count(*)::int AS n FROM organizations')).rows[0].n, 1, 'the queued unit committed before close');
});

t.test('a database migrated by a newer build is refused, nothing changed', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const first = await openPostgresStorage({ url });
  await first.pool.query("INSERT INTO switchyard_schema VALUES ($1, 'from-the-future', 0)", [known + 1]);
  await first.close();
  const refused: unknown = await openPostgresStorage({ url }).catch((error: unknown) => error);
  t.type(refused, FutureSchemaError);
});

t.test('an unreachable server is PostgresUnreachableError without the password', async (t) => {
  const refused: unknown = await openPostgresStorage({ url: 'postgres://switchyard:s3cret-pw@127.0.0.1:1/nowhere', connectTimeoutMs: 2_000 }).catch((e: unknown) => e);
  t.type(refused, PostgresUnreachableError);
  t.notMatch(String((refused as Error).message), /s3cret-pw/);
});
