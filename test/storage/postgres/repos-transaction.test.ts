// PostgreSQL repositories bound to one transaction's client: isolation, rollback, a failed statement, racing single-statement writes.
import t, { type Test } from 'tap';
import { isUniqueViolation } from '../../../storage/port/errors.js';
import { connectPostgres, type PostgresPool } from '../../../storage/postgres/connection.js';
import { migratePostgres } from '../../../storage/postgres/migrate.js';
import { createPostgresRepositories } from '../../../storage/postgres/repos/index.js';
import { usePostgres } from '../../helpers/postgres.js';
import { lockWaiters, transaction } from '../../helpers/postgres-races.js';
import { automation, domain, organization, partner, user } from '../contract/seed.js';
import { newExecution, newMessage, seedSession } from '../contract/session-seed.js';

const pg = await usePostgres(t);

async function migrated(t: Test): Promise<PostgresPool> {
  const pool = await connectPostgres({ url: await pg.database(t), applicationName: 'switchyard-repos-tx' });
  t.teardown(() => pool.end());
  await migratePostgres(pool);
  return pool;
}

t.test('writes through a transaction\'s repos are seen inside it, by others only after COMMIT, never after ROLLBACK', { skip: pg.skip }, async (t) => {
  const pool = await migrated(t);
  const outside = createPostgresRepositories(pool);
  const tx = await transaction(t, pool);
  await tx.repos.tenancy.insertOrganization(organization('org-1'));
  t.ok(await tx.repos.tenancy.organization('org-1'), 'read your own write');
  t.equal(await outside.tenancy.organization('org-1'), undefined, 'not visible before commit');
  await tx.end('COMMIT');
  t.ok(await outside.tenancy.organization('org-1'), 'visible after commit');

  const tx2 = await transaction(t, pool);
  await tx2.repos.tenancy.insertUser(user('u-1'));
  await tx2.end('ROLLBACK');
  t.equal(await outside.tenancy.user('u-1'), undefined, 'rolled back');
});

t.test('a refused statement aborts the PostgreSQL transaction (unlike SQLite); a savepoint keeps the rest', { skip: pg.skip }, async (t) => {
  const pool = await migrated(t);
  await createPostgresRepositories(pool).tenancy.insertUser(user('u-1'));
  const tx = await transaction(t, pool);
  t.ok(isUniqueViolation(await tx.repos.tenancy.insertUser(user('u-1')).catch((e: unknown) => e)));
  await t.rejects(tx.repos.tenancy.user('u-1'), { code: '25P02' }, 'every later statement fails until ROLLBACK');
  await tx.end('ROLLBACK');

  const tx2 = await transaction(t, pool);
  await tx2.repos.tenancy.insertOrganization(organization('org-1'));
  await tx2.client.query('SAVEPOINT unit');
  t.ok(isUniqueViolation(await tx2.repos.tenancy.insertUser(user('u-1')).catch((e: unknown) => e)));
  await tx2.client.query('ROLLBACK TO SAVEPOINT unit');
  await tx2.end('COMMIT');
  t.ok(await createPostgresRepositories(pool).tenancy.organization('org-1'), 'the write before the savepoint committed');
});

t.test('single-statement guarded writes hold under concurrent transactions: quota spent once, invitation used once', { skip: pg.skip }, async (t) => {
  const pool = await migrated(t);
  const repos = createPostgresRepositories(pool);
  await repos.partners.insertPartner(partner('p-1', { quotaTotal: 1 }));
  await repos.tenancy.insertUser(user('u-1'));
  await repos.provisioning.insertInvitation({ id: 'inv-1', userId: 'u-1', tokenHash: Buffer.from('h'), expiresAt: 100, usedAt: null, createdAt: 1 });
  const [a, b] = [await transaction(t, pool), await transaction(t, pool)];
  t.equal(await a.repos.partners.spendQuota('p-1'), true);
  t.equal(await a.repos.provisioning.useInvitation('inv-1', 10), true);
  // b's UPDATE blocks on the partner row a changed; once a commits, it re-checks its WHERE on the committed row.
  const spent = b.repos.partners.spendQuota('p-1');
  const used = b.repos.provisioning.useInvitation('inv-1', 11);
  await lockWaiters(pool, 1);
  await a.end('COMMIT');
  t.equal(await spent, false, 'the last customer of the quota went to one transaction');
  t.equal(await used, false, 'the invitation was redeemed once');
  await b.end('COMMIT');
  t.equal((await repos.partners.partner('p-1'))!.quotaUsed, 1);
  t.equal((await repos.provisioning.invitationByHash(Buffer.from('h')))!.usedAt, 10);
});

t.test('session trail numbering under concurrent transactions: event seqs, message and turn positions dense and distinct', { skip: pg.skip }, async (t) => {
  const pool = await migrated(t);
  const repos = createPostgresRepositories(pool);
  await seedSession({
    driver: 'postgres',
    repos,
    exec: async (sql) => void (await pool.query(sql)),
    select: async (sql) => (await pool.query(sql)).rows as Array<Record<string, unknown>>,
    blob: (hex) => `'\\x${hex}'::bytea`,
  });

  // Events: b computes the seq a holds uncommitted; ON CONFLICT waits for a, then b takes the next one (no abort).
  let [a, b] = [await transaction(t, pool), await transaction(t, pool)];
  t.equal(await a.repos.sessionEvents.appendNext('s-1', 1, 'token', '{"by":"a"}'), 1);
  let appended = b.repos.sessionEvents.appendNext('s-1', 2, 'token', '{"by":"b"}');
  await lockWaiters(pool, 1);
  await a.end('COMMIT');
  t.equal(await appended, 2, 'the loser is told the seq it really wrote');
  await b.end('COMMIT');
  // The winner rolls back: its seq is free again, so numbering stays gap-free.
  [a, b] = [await transaction(t, pool), await transaction(t, pool)];
  t.equal(await a.repos.sessionEvents.appendNext('s-1', 3, 'token', '{}'), 3);
  appended = b.repos.sessionEvents.appendNext('s-1', 4, 'token', '{"by":"b"}');
  await lockWaiters(pool, 1);
  await a.end('ROLLBACK');
  t.equal(await appended, 3);
  await b.end('COMMIT');
  t.strictSame((await repos.sessionEvents.listRange('s-1', 0, 10, 10)).map((e) => e.payload), ['{"by":"a"}', '{"by":"b"}', '{"by":"b"}']);

  // Messages have no unique position key: the session row lock makes b count after a's commit.
  [a, b] = [await transaction(t, pool), await transaction(t, pool)];
  await a.repos.sessions.insertMessage(newMessage('m-a', 's-1'));
  const message = b.repos.sessions.insertMessage(newMessage('m-b', 's-1'));
  await lockWaiters(pool, 1);
  await a.end('COMMIT');
  await message;
  await b.end('COMMIT');
  t.strictSame((await repos.sessions.conversation('s-1')).map((m) => [m.id, m.position]), [['m-a', 1], ['m-b', 2]]);

  // Turns accepted on two nodes at once: both get a position (the lock), rather than the second failing the unique key.
  [a, b] = [await transaction(t, pool), await transaction(t, pool)];
  t.equal(await a.repos.executions.insertExecution(newExecution('e-a', 's-1')), 1);
  const position = b.repos.executions.insertExecution(newExecution('e-b', 's-1'));
  await lockWaiters(pool, 1);
  await a.end('COMMIT');
  t.equal(await position, 2);
  await b.end('COMMIT');
});

t.test('row locks for read-then-write units: the second waits for the first commit, then reads what it wrote', { skip: pg.skip }, async (t) => {
  const pool = await migrated(t);
  const repos = createPostgresRepositories(pool);
  await repos.tenancy.insertOrganization(organization('org-1'));
  await repos.tenancy.insertUser(user('u-1'));
  await repos.tenancy.insertDomain(domain('dom-1', 'org-1'));
  await repos.automations.insertAutomation(automation('a-1'));
  const revision = (n: number) => ({ automationId: 'a-1', revision: n, setup: {}, belt: [], changeNote: null, publishedBy: null, createdAt: 1_000 });
  const cases: Array<[string, (r: typeof repos) => Promise<void>, (r: typeof repos) => Promise<unknown>, (r: typeof repos) => Promise<unknown>]> = [
    ['organization (domain names)', (r) => r.tenancy.lockOrganization('org-1'), (r) => r.tenancy.insertDomain(domain('d-1', 'org-1')), async (r) => (await r.tenancy.domainsOfOrganization('org-1')).length],
    ['user (memberships)', (r) => r.tenancy.lockUser('u-1'), (r) => r.tenancy.setOrgRole('org-1', 'u-1', 'member', 5), (r) => r.tenancy.orgRole('org-1', 'u-1')],
    ['automation (revision numbers)', (r) => r.automations.lockAutomation('a-1'), (r) => r.automations.insertAgentRevision(revision(1)), async (r) => (await r.automations.latestAgentRevision('a-1'))?.revision],
  ];
  for (const [name, lock, write, read] of cases) {
    const before = await read(repos);
    const [a, b] = [await transaction(t, pool), await transaction(t, pool)];
    await lock(a.repos);
    await write(a.repos);
    const seen = lock(b.repos).then(() => read(b.repos));
    await lockWaiters(pool, 1);
    await a.end('COMMIT');
    const after = await seen;
    t.notSame(after, before, `${name}: a's write changed what is read`);
    t.same(after, await read(repos), `${name}: after the wait b reads a's commit`);
    await b.end('ROLLBACK');
  }
});
