// Storage contract, both drivers: tenancy (organizations, users, memberships, domains, refs) and management's pages.
import t from 'tap';
import { constraintKind, ConstraintViolationError, isUniqueViolation } from '../../../storage/port/errors.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { allPages, domain, FAR_FUTURE, organization, seedWorkspace, user } from './seed.js';

const drivers = await useStorageDrivers(t);

contract(t, drivers, 'organizations: insert and read back every field; rename, flags, segment; missing ids read as undefined', async (t, { repos }) => {
  const { tenancy } = repos;
  const org = organization('org-1', {
    clientSegment: 'seg-A',
    directLoginDisabled: true,
    rolloutFlags: { eventTriggers: false, beta: true },
    createdAt: FAR_FUTURE,
  });
  await tenancy.insertOrganization(org);
  t.strictSame(await tenancy.organization('org-1'), org, 'booleans, parsed JSON, a big epoch-ms number and nulls come back as written');
  await tenancy.insertOrganization(organization('org-2'));
  t.strictSame(await tenancy.organization('org-2'), organization('org-2'), 'null partner and segment, false flag, {} flags');

  await tenancy.renameOrganization('org-1', 'Renamed');
  await tenancy.setRolloutFlags('org-1', { eventTriggers: true });
  t.strictSame(await tenancy.organizationBySegment('seg-A'), { ...org, name: 'Renamed', rolloutFlags: { eventTriggers: true } });
  t.equal(await tenancy.organization('nope'), undefined);
  t.equal(await tenancy.organizationBySegment('seg-a'), undefined, 'segments compare exactly');

  const sameId = await tenancy.insertOrganization(organization('org-1')).catch((e: unknown) => e);
  t.ok(isUniqueViolation(sameId), 'a duplicate id is a unique violation');
  const sameSegment = await tenancy.insertOrganization(organization('org-3', { clientSegment: 'seg-A' })).catch((e: unknown) => e);
  t.ok(isUniqueViolation(sameSegment), 'a duplicate client segment is a unique violation');
  t.equal(await tenancy.organization('org-3'), undefined, 'nothing of the refused row was written');
});

contract(t, drivers, 'users: email unique and found case-insensitively; update, disable, password', async (t, { repos }) => {
  const { tenancy } = repos;
  const ann = user('u-ann', { email: 'Ann@Example.com', passwordHash: 'hash-1', createdAt: FAR_FUTURE });
  await tenancy.insertUser(ann);
  t.strictSame(await tenancy.user('u-ann'), ann);
  t.strictSame(await tenancy.userByEmail('ann@example.COM'), ann, 'found whatever the case of the address');
  t.equal(await tenancy.userByEmail('bob@example.com'), undefined);
  const twin = await tenancy.insertUser(user('u-twin', { email: 'ANN@example.com' })).catch((e: unknown) => e);
  t.ok(isUniqueViolation(twin), 'the same address in another case is a unique violation');

  await tenancy.updateUser({ id: 'u-ann', name: 'Ann B.', passwordHash: null });
  await tenancy.setUserDisabled('u-ann', true);
  t.strictSame(await tenancy.user('u-ann'), { ...ann, name: 'Ann B.', passwordHash: null, disabled: true });
  await tenancy.setPassword('u-ann', 'hash-2');
  await tenancy.setUserDisabled('u-ann', false);
  t.strictSame(await tenancy.user('u-ann'), { ...ann, name: 'Ann B.', passwordHash: 'hash-2', disabled: false });
  t.equal(await tenancy.user('nope'), undefined);
});

contract(t, drivers, 'organization memberships: upsert keeps one row; disabled or suspended holds no role; orders', async (t, { repos }) => {
  const { tenancy, management } = repos;
  // Names whose byte order (SQLite's BINARY) differs from a linguistic collation's: "Zeta" < "alpha" < "beta".
  await tenancy.insertOrganization(organization('org-b', { name: 'beta' }));
  await tenancy.insertOrganization(organization('org-z', { name: 'Zeta' }));
  await tenancy.insertOrganization(organization('org-a', { name: 'alpha' }));
  await tenancy.insertOrganization(organization('org-s', { name: 'Suspended' }));
  await tenancy.insertUser(user('u-1'));
  await tenancy.setOrgRole('org-b', 'u-1', 'member', 10);
  await tenancy.setOrgRole('org-z', 'u-1', 'admin', 30);
  await tenancy.setOrgRole('org-a', 'u-1', 'owner', 20);
  await tenancy.setOrgRole('org-s', 'u-1', 'owner', 40);
  await tenancy.setOrgRole('org-b', 'u-1', 'admin', 50);
  t.equal(await tenancy.orgRole('org-b', 'u-1'), 'admin', 'the upsert changed the role');
  t.strictSame(await tenancy.organizationsOfUser('u-1'), [
    { orgId: 'org-b', role: 'admin' }, { orgId: 'org-a', role: 'owner' }, { orgId: 'org-z', role: 'admin' }, { orgId: 'org-s', role: 'owner' },
  ], 'by membership creation time (the upsert kept the first one)');

  await management.setSuspended('org-s', 60);
  await management.setMemberDisabled('org-a', 'u-1', 70);
  t.equal(await tenancy.orgRole('org-s', 'u-1'), null, 'suspended organization');
  t.equal(await tenancy.orgRole('org-a', 'u-1'), null, 'disabled membership');
  t.equal(await tenancy.orgRole('org-x', 'u-1'), null, 'no membership');
  t.strictSame(await tenancy.activeOrganizationsOfUser('u-1'), [
    { orgId: 'org-z', role: 'admin', name: 'Zeta' }, { orgId: 'org-b', role: 'admin', name: 'beta' },
  ], 'enabled memberships of unsuspended organizations, by name in byte order');
  await management.setMemberDisabled('org-a', 'u-1', null);
  t.equal(await tenancy.orgRole('org-a', 'u-1'), 'owner', 're-enabled');

  await tenancy.removeOrgMember('org-b', 'u-1');
  t.equal(await tenancy.orgRole('org-b', 'u-1'), null);
  const orphan = await tenancy.setOrgRole('org-b', 'u-nobody', 'member', 1).catch((e: unknown) => e);
  t.equal(constraintKind(orphan), 'foreign_key', 'a membership of an unknown user is a foreign-key violation on both');
});

contract(t, drivers, 'domains and domain roles: policy JSON, order by creation then id, upserted roles, org-scoped lists', async (t, { repos }) => {
  const { tenancy } = repos;
  await tenancy.insertOrganization(organization('org-1'));
  await tenancy.insertOrganization(organization('org-2'));
  await tenancy.insertUser(user('u-1'));
  const policy = { approvers: ['u-2', 'u-1'], mode: 'any' };
  // Same creation time: ids in byte order ("dom-B" before "dom-a"), as SQLite sorts them.
  await tenancy.insertDomain({ id: 'dom-a', orgId: 'org-1', name: 'A', approvalPolicy: policy, createdAt: 5 });
  await tenancy.insertDomain(domain('dom-B', 'org-1', { name: 'B', createdAt: 5 }));
  await tenancy.insertDomain(domain('dom-0', 'org-1', { name: 'Old', createdAt: 1 }));
  await tenancy.insertDomain(domain('dom-x', 'org-2', { name: 'X', createdAt: 1 }));
  t.strictSame(await tenancy.domain('dom-a'), { id: 'dom-a', orgId: 'org-1', name: 'A', approvalPolicy: policy, createdAt: 5 });
  t.strictSame((await tenancy.domainsOfOrganization('org-1')).map((d) => d.id), ['dom-0', 'dom-B', 'dom-a']);
  await tenancy.updateDomain('dom-a', 'A2', { approvers: [] });
  t.strictSame(await tenancy.domain('dom-a'), { id: 'dom-a', orgId: 'org-1', name: 'A2', approvalPolicy: { approvers: [] }, createdAt: 5 });
  t.equal(await tenancy.domain('nope'), undefined);

  await tenancy.setDomainRole('dom-a', 'u-1', 'viewer', 1);
  await tenancy.setDomainRole('dom-a', 'u-1', 'editor', 2);
  await tenancy.setDomainRole('dom-B', 'u-1', 'operator', 3);
  await tenancy.setDomainRole('dom-x', 'u-1', 'owner', 4);
  t.equal(await tenancy.domainRole('dom-a', 'u-1'), 'editor');
  t.equal(await tenancy.domainRole('dom-0', 'u-1'), null);
  const roles = await tenancy.domainRolesOfUser('u-1', 'org-1');
  t.strictSame([...roles].sort((x, y) => (x.domainId < y.domainId ? -1 : 1)), [
    { domainId: 'dom-B', role: 'operator' }, { domainId: 'dom-a', role: 'editor' },
  ], 'only the organization\'s domains (no order promised)');
  await tenancy.removeDomainMember('dom-a', 'u-1');
  t.equal(await tenancy.domainRole('dom-a', 'u-1'), null);
});

contract(t, drivers, 'manifest refs and the empty-database check', async (t, { repos }) => {
  const { tenancy } = repos;
  t.equal(await tenancy.isEmpty(), true, 'a fresh database is empty');
  t.equal(await tenancy.manifestRef('ws', 'support'), undefined);
  await tenancy.putManifestRef('ws', 'support', 'domain', 'dom-1');
  t.strictSame(await tenancy.manifestRef('ws', 'support'), { entity: 'domain', entityId: 'dom-1' });
  await tenancy.putManifestRef('ws', 'support', 'domain', 'dom-2');
  t.strictSame(await tenancy.manifestRef('ws', 'support'), { entity: 'domain', entityId: 'dom-2' }, 'a re-apply overwrites');
  t.equal(await tenancy.manifestRef('other', 'support'), undefined, 'refs are per scope');
  t.equal(await tenancy.isEmpty(), false, 'a ref alone means someone applied something');
});

contract(t, drivers, 'management: customers and members page by (created_at, id) in byte order; member flags; owners', async (t, db) => {
  const { tenancy, management } = db.repos;
  await seedWorkspace(db, { partner: true });
  // Ties on created_at, ids whose byte order differs from a linguistic one.
  for (const [id, at] of [['c-b', 20], ['c-A', 20], ['c-a', 20], ['c-Z', 10], ['c-0', 30]] as const) {
    await tenancy.insertOrganization(organization(id, { partnerId: 'p-1', createdAt: at }));
  }
  const pages = await allPages((after, limit) => management.customers('p-1', after, limit), (o) => o.id, 2);
  t.strictSame(pages.map((p) => p.map((o) => o.id)), [['c-Z', 'c-A'], ['c-a', 'c-b'], ['c-0', 'org-1']]);
  t.strictSame(pages[2]![1], organization('org-1', { partnerId: 'p-1' }), 'customers are organization records');
  t.strictSame(await management.customers('p-none', null, 10), []);

  await tenancy.updateUser({ id: 'u-1', name: 'User u-1', passwordHash: 'h' });
  await tenancy.insertUser(user('u-B'));
  await tenancy.insertUser(user('u-a', { disabled: true }));
  await tenancy.setOrgRole('org-1', 'u-1', 'owner', 5);
  await tenancy.setOrgRole('org-1', 'u-a', 'owner', 7);
  await tenancy.setOrgRole('org-1', 'u-B', 'member', 7);
  const members = await allPages((after, limit) => management.members('org-1', after, limit), (m) => m.userId, 2);
  t.strictSame(members.flat().map((m) => m.userId), ['u-1', 'u-B', 'u-a']);
  t.strictSame(await management.member('org-1', 'u-a'), {
    userId: 'u-a', email: 'u-a@example.com', name: 'User u-a', role: 'owner', createdAt: 7, disabledAt: null, hasPassword: false, userDisabled: true,
  });
  t.equal((await management.member('org-1', 'u-1'))!.hasPassword, true);
  t.equal(await management.member('org-1', 'u-none'), undefined);
  t.equal(await management.activeOwnerCount('org-1'), 2);
  await management.setMemberDisabled('org-1', 'u-a', 9);
  t.equal((await management.member('org-1', 'u-a'))!.disabledAt, 9);
  t.equal(await management.activeOwnerCount('org-1'), 1, 'a disabled owner does not count');
});

contract(t, drivers, 'management: domains renamed and found by name case-insensitively; support grants paged per partner', async (t, db) => {
  const { management, tenancy, supportGrants } = db.repos;
  await seedWorkspace(db, { partner: true });
  await management.renameDomain('dom-1', 'Billing Team');
  t.equal((await tenancy.domain('dom-1'))!.name, 'Billing Team');
  t.equal(await management.domainNamed('org-1', 'billing team'), 'dom-1');
  t.equal(await management.domainNamed('org-1', 'Billing'), undefined);
  t.equal(await management.domainNamed('org-2', 'Billing Team'), undefined);

  for (const [id, at] of [['g-a', 2], ['g-B', 2], ['g-0', 1]] as const) {
    await supportGrants.insert({ id, orgId: 'org-1', partnerId: 'p-1', sessionId: 'ses-1', createdBy: null, createdAt: at, expiresAt: FAR_FUTURE, revokedAt: null });
  }
  const pages = await allPages((after, limit) => management.supportGrantsOf('org-1', 'p-1', after, limit), (g) => g.id, 2);
  t.strictSame(pages.map((p) => p.map((g) => g.id)), [['g-0', 'g-B'], ['g-a']]);
  t.strictSame(await management.supportGrantsOf('org-1', 'p-other', null, 10), []);
});

contract(t, drivers, 'a refused write surfaces one error kind on both drivers, without the values it carried', async (t, { repos, driver }) => {
  await repos.tenancy.insertUser(user('u-1', { email: 'secret.person@example.com' }));
  const error = await repos.tenancy.insertUser(user('u-2', { email: 'SECRET.person@example.com' })).catch((e: unknown) => e);
  t.equal(constraintKind(error), 'unique');
  if (driver === 'postgres') {
    t.type(error, ConstraintViolationError);
    t.match(error, { table: 'users', constraint: 'users_email' });
    t.notMatch(JSON.stringify(error), /secret\.person/i, 'pg\'s detail (which quotes the key) is not carried');
    t.notMatch(String(error), /secret\.person/i);
  }
  t.equal(constraintKind(new Error('other')), null, 'any other error has no constraint kind');
});
