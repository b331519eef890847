// Storage contract, both drivers: API keys, user tokens, console sessions, the integration catalog, connections (with management's).
import t from 'tap';
import { createHash } from 'node:crypto';
import { isUniqueViolation, constraintKind } from '../../../storage/port/errors.js';
import type { NewApiKey } from '../../../storage/records/credentials.js';
import type { Connection, Integration } from '../../../storage/records/integrations.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, allPages, seedWorkspace, user } from './seed.js';

const drivers = await useStorageDrivers(t);
const hash = (text: string) => createHash('sha256').update(text).digest();

const apiKey = (id: string, over: Partial<NewApiKey> = {}): NewApiKey => ({
  id,
  userId: 'u-1',
  orgId: 'org-1',
  name: `Key ${id}`,
  keyHash: hash(id),
  hint: 'sv_…abcd',
  createdAt: 10,
  revokedAt: null,
  ...over,
});

/** org-1 (domain dom-1) with u-1 as its owner, and org-2 with u-1 as a member too. */
async function seedMembers(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db, { otherOrganization: true });
  await db.repos.tenancy.setOrgRole('org-1', 'u-1', 'owner', 1);
  await db.repos.tenancy.setOrgRole('org-2', 'u-1', 'member', 1);
}

contract(t, drivers, 'API keys: every field back (hash bytes, nulls, far-future times), by hash, unique hash, single revocation, touch once a minute', async (t, db) => {
  await seedMembers(db);
  const { credentials } = db.repos;
  const key = apiKey('key-1', { createdAt: FAR_FUTURE, revokedAt: null });
  await credentials.insertApiKey(key);
  const stored = { ...key, lastUsedAt: null };
  t.strictSame(await credentials.apiKey('key-1'), stored, 'a new key was never used');
  t.ok(Buffer.isBuffer((await credentials.apiKey('key-1'))!.keyHash), 'the hash reads back as a Buffer');
  t.strictSame(await credentials.apiKeyByHash(hash('key-1')), stored);
  t.equal(await credentials.apiKeyByHash(hash('other')), undefined);
  t.equal(await credentials.apiKey('nope'), undefined);

  const duplicate = await credentials.insertApiKey(apiKey('key-dup', { keyHash: hash('key-1') })).catch((e: unknown) => e);
  t.ok(isUniqueViolation(duplicate), 'one key per hash');
  t.notMatch(String((duplicate as Error).message), hash('key-1').toString('hex'), 'the error does not quote the hash');
  t.ok(isUniqueViolation(await credentials.insertApiKey(apiKey('key-1', { keyHash: hash('x') })).catch((e: unknown) => e)), 'one key per id');
  t.equal(await credentials.apiKey('key-dup'), undefined, 'nothing of a refused key was written');
  t.equal(constraintKind(await credentials.insertApiKey(apiKey('key-orphan', { userId: 'u-none' })).catch((e: unknown) => e)), 'foreign_key');

  t.equal(await credentials.touchApiKey('key-1', 60_000, 0), true, 'first use recorded');
  t.equal(await credentials.touchApiKey('key-1', 90_000, 60_000), false, 'a use within the minute is not written again');
  t.equal(await credentials.touchApiKey('key-1', 120_000, 60_001), true);
  t.equal((await credentials.apiKey('key-1'))!.lastUsedAt, 120_000);
  t.equal(await credentials.touchApiKey('nope', 1, 0), false);

  t.equal(await credentials.revokeApiKey('key-1', 7), true);
  t.equal(await credentials.revokeApiKey('key-1', 8), false, 'already revoked: the first time stays');
  t.equal((await credentials.apiKey('key-1'))!.revokedAt, 7);
  t.equal(await credentials.revokeApiKey('nope', 7), false);
});

contract(t, drivers, 'API keys: the active lookup needs an unrevoked key, an enabled user, a live membership and an unsuspended organization', async (t, db) => {
  await seedMembers(db);
  const { credentials, tenancy, management } = db.repos;
  await credentials.insertApiKey(apiKey('key-1'));
  t.equal((await credentials.activeApiKeyByHash(hash('key-1')))?.id, 'key-1');
  await tenancy.setUserDisabled('u-1', true);
  t.equal(await credentials.activeApiKeyByHash(hash('key-1')), undefined, 'disabled user');
  await tenancy.setUserDisabled('u-1', false);
  await management.setMemberDisabled('org-1', 'u-1', 5);
  t.equal(await credentials.activeApiKeyByHash(hash('key-1')), undefined, 'disabled membership');
  await management.setMemberDisabled('org-1', 'u-1', null);
  await management.setSuspended('org-1', 5);
  t.equal(await credentials.activeApiKeyByHash(hash('key-1')), undefined, 'suspended organization');
  await management.setSuspended('org-1', null);
  t.equal((await credentials.activeApiKeyByHash(hash('key-1')))?.id, 'key-1');
  await credentials.revokeApiKey('key-1', 9);
  t.equal(await credentials.activeApiKeyByHash(hash('key-1')), undefined, 'revoked key');
  await credentials.insertApiKey(apiKey('key-2', { orgId: 'org-2' }));
  await tenancy.removeOrgMember('org-2', 'u-1');
  t.equal(await credentials.activeApiKeyByHash(hash('key-2')), undefined, 'no longer a member of the key\'s organization');
});

contract(t, drivers, 'API keys: lists and keyset pages by creation time, then id in byte order', async (t, db) => {
  await seedMembers(db);
  await db.repos.tenancy.insertUser(user('u-2'));
  await db.repos.tenancy.setOrgRole('org-1', 'u-2', 'member', 1);
  const { credentials } = db.repos;
  // "k-B" < "k-a" in byte order, the reverse in most linguistic collations.
  for (const [id, createdAt, userId] of [['k-a', 5, 'u-1'], ['k-B', 5, 'u-1'], ['k-0', FAR_FUTURE, 'u-1'], ['k-z', 1, 'u-2'], ['k-c', 3, 'u-1']] as const) {
    await credentials.insertApiKey(apiKey(id, { createdAt, userId }));
  }
  await credentials.insertApiKey(apiKey('k-other-org', { orgId: 'org-2' }));
  t.strictSame((await credentials.apiKeysOfUser('u-1', 'org-1')).map((k) => k.id), ['k-c', 'k-B', 'k-a', 'k-0']);
  t.strictSame(await credentials.apiKeysOfUser('u-none', 'org-1'), []);
  const userPages = await allPages((after, limit) => credentials.apiKeysOfUserPage('u-1', 'org-1', after, limit), (k) => k.id, 2);
  t.strictSame(userPages.map((p) => p.map((k) => k.id)), [['k-c', 'k-B'], ['k-a', 'k-0']]);
  const orgPages = await allPages((after, limit) => credentials.apiKeysOfOrganizationPage('org-1', null, after, limit), (k) => k.id, 3);
  t.strictSame(orgPages.map((p) => p.map((k) => k.id)), [['k-z', 'k-c', 'k-B'], ['k-a', 'k-0']], 'every user of the organization');
  t.strictSame((await credentials.apiKeysOfOrganizationPage('org-1', 'u-2', null, 10)).map((k) => k.id), ['k-z'], 'one user only');
  t.strictSame(await credentials.apiKeysOfOrganizationPage('org-1', null, { createdAt: FAR_FUTURE, id: 'k-0' }, 10), [], 'past the last key');
});

contract(t, drivers, 'user tokens and console sessions: by hash, unique hash, an unchosen organization, sweeps by expiry', async (t, db) => {
  await seedMembers(db);
  const { credentials } = db.repos;
  const token = { id: 'tok-1', userId: 'u-1', orgId: 'org-1', tokenHash: hash('tok-1'), createdAt: 1, expiresAt: FAR_FUTURE };
  await credentials.insertUserToken(token);
  await credentials.insertUserToken({ ...token, id: 'tok-2', tokenHash: hash('tok-2'), expiresAt: 100 });
  t.strictSame(await credentials.userTokenByHash(hash('tok-1')), token);
  t.equal(await credentials.userTokenByHash(hash('nope')), undefined);
  t.ok(isUniqueViolation(await credentials.insertUserToken({ ...token, id: 'tok-3' }).catch((e: unknown) => e)), 'one token per hash');
  t.equal(await credentials.sweepUserTokens(100), 1, 'expired at or before now');
  t.equal(await credentials.sweepUserTokens(100), 0);
  t.strictSame(await credentials.userTokenByHash(hash('tok-1')), token);

  const session = { id: 'cs-1', userId: 'u-1', orgId: null, tokenHash: hash('cs-1'), createdAt: 1, expiresAt: FAR_FUTURE };
  await credentials.insertConsoleSession(session);
  await credentials.insertConsoleSession({ ...session, id: 'cs-2', orgId: 'org-1', tokenHash: hash('cs-2'), expiresAt: 50 });
  t.strictSame(await credentials.consoleSessionByHash(hash('cs-1')), session, 'null organization until one is chosen');
  t.equal((await credentials.consoleSessionByHash(hash('cs-2')))!.orgId, 'org-1');
  t.ok(isUniqueViolation(await credentials.insertConsoleSession({ ...session, id: 'cs-3' }).catch((e: unknown) => e)));
  await credentials.deleteConsoleSession(hash('cs-1'));
  t.equal(await credentials.consoleSessionByHash(hash('cs-1')), undefined);
  await credentials.deleteConsoleSession(hash('cs-1'));
  t.equal(await credentials.sweepConsoleSessions(60), 1);
  t.equal(await credentials.consoleSessionByHash(hash('cs-2')), undefined);
});

const integration = (id: string, over: Partial<Integration> = {}): Integration => ({
  id,
  orgId: null,
  name: `Integration ${id}`,
  description: '',
  definition: { id, auth: { type: 'none' } },
  available: true,
  updatedAt: 1,
  ...over,
});

contract(t, drivers, 'integrations: the definition as applied (key order kept), upsert overwrites, global and visible lists in byte order', async (t, db) => {
  await seedWorkspace(db, { otherOrganization: true });
  const { integrations } = db.repos;
  // Keys out of alphabetical and length order: a jsonb column would reorder them.
  const definition = { zeta: 1, baseUrl: 'https://api.example.com', a: { y: [3, 1, 2], b: null }, text: 'é \u2028 "quoted"' };
  const weather = integration('weather', { description: 'Forecasts', definition, updatedAt: FAR_FUTURE });
  await integrations.upsertIntegration(weather);
  const stored = await integrations.integration('weather');
  t.strictSame(stored, weather);
  t.strictSame(Object.keys(stored!.definition as object), ['zeta', 'baseUrl', 'a', 'text']);
  t.equal(await integrations.integration('nope'), undefined);

  const changed = { ...weather, orgId: 'org-1', name: 'Weather 2', description: 'Private', definition: { b: 1, a: 2 }, available: false, updatedAt: 9 };
  await integrations.upsertIntegration(changed);
  t.strictSame(await integrations.integration('weather'), changed, 'every column overwritten');
  t.strictSame(Object.keys((await integrations.integration('weather'))!.definition as object), ['b', 'a']);

  await integrations.upsertIntegration(integration('Zed'));
  await integrations.upsertIntegration(integration('alpha'));
  await integrations.upsertIntegration(integration('hidden', { available: false }));
  await integrations.upsertIntegration(integration('own-1', { orgId: 'org-1' }));
  await integrations.upsertIntegration(integration('own-2', { orgId: 'org-2' }));
  t.strictSame((await integrations.globalIntegrations()).map((i) => i.id), ['Zed', 'alpha', 'hidden'], 'byte order: "Zed" < "alpha"');
  t.strictSame((await integrations.integrationsVisibleTo('org-1')).map((i) => i.id), ['Zed', 'alpha', 'own-1'], 'available ones: global and its own');
  await integrations.upsertIntegration({ ...changed, available: true });
  t.strictSame((await integrations.integrationsVisibleTo('org-1')).map((i) => i.id), ['Zed', 'alpha', 'own-1', 'weather']);
  t.strictSame((await integrations.integrationsVisibleTo('org-2')).map((i) => i.id), ['Zed', 'alpha', 'own-2']);
});

const connection = (id: string, over: Partial<Connection> = {}): Connection => ({
  id,
  orgId: 'org-1',
  domainId: null,
  integrationId: 'weather',
  secretSealed: Buffer.from([0, 1, 2, 254, 255]),
  createdAt: 5,
  rotatedAt: null,
  ...over,
});

contract(t, drivers, 'connections: sealed bytes both ways, update, lists by creation then id; management reads, rotates and deletes them', async (t, db) => {
  await seedWorkspace(db);
  const { integrations, management } = db.repos;
  await integrations.upsertIntegration(integration('weather'));
  await integrations.upsertIntegration(integration('maps'));
  const first = connection('con-B', { domainId: 'dom-1', createdAt: FAR_FUTURE, rotatedAt: 123 });
  await integrations.insertConnection(first);
  t.strictSame(await integrations.connection('con-B'), { ...first, rotatedAt: null }, 'a new connection was never rotated, whatever the record says');
  t.ok(Buffer.isBuffer((await integrations.connection('con-B'))!.secretSealed));
  await integrations.insertConnection(connection('con-a', { secretSealed: null }));
  await integrations.insertConnection(connection('con-0', { integrationId: 'maps' }));
  await integrations.insertConnection(connection('con-Z'));
  t.equal((await integrations.connection('con-a'))!.secretSealed, null, 'not connected to an account yet');
  t.equal(await integrations.connection('nope'), undefined);
  t.ok(isUniqueViolation(await integrations.insertConnection(connection('con-a')).catch((e: unknown) => e)));
  t.equal(constraintKind(await integrations.insertConnection(connection('con-x', { integrationId: 'none' })).catch((e: unknown) => e)), 'foreign_key');

  t.strictSame((await integrations.connectionsOfOrganization('org-1')).map((c) => c.id), ['con-0', 'con-Z', 'con-a', 'con-B']);
  t.strictSame((await integrations.connectionsFor('org-1', 'weather')).map((c) => c.id), ['con-Z', 'con-a', 'con-B']);
  t.strictSame(await integrations.connectionsFor('org-1', 'none'), []);

  const sealed = Buffer.from('sealed-v2\u0000\u00ff', 'latin1');
  await integrations.updateConnection({ id: 'con-a', domainId: 'dom-1', integrationId: 'maps', secretSealed: sealed });
  t.strictSame(await integrations.connection('con-a'), connection('con-a', { domainId: 'dom-1', integrationId: 'maps', secretSealed: sealed }));
  // connectionsFor is a cached read on SQLite (storage/read-cache.ts): each write below must show at once.
  t.strictSame((await integrations.connectionsFor('org-1', 'weather')).map((c) => c.id), ['con-Z', 'con-B'], 'moved to another integration');
  t.strictSame((await integrations.connectionsFor('org-1', 'maps')).map((c) => c.id), ['con-0', 'con-a']);

  t.strictSame(await management.connection('con-a'), await integrations.connection('con-a'), 'management reads the same record');
  const rotated = Buffer.from([9, 9, 0, 9]);
  await management.rotateConnection('con-a', rotated, FAR_FUTURE);
  t.strictSame(await management.connection('con-a'), connection('con-a', { domainId: 'dom-1', integrationId: 'maps', secretSealed: rotated, rotatedAt: FAR_FUTURE }));
  t.strictSame((await integrations.connectionsFor('org-1', 'maps')).find((c) => c.id === 'con-a')?.secretSealed, rotated, 'a rotation is read by the next tool call');
  await management.deleteConnection('con-a');
  t.equal(await management.connection('con-a'), undefined);
  t.equal(await integrations.connection('con-a'), undefined);
  t.strictSame((await integrations.connectionsFor('org-1', 'maps')).map((c) => c.id), ['con-0'], 'a deleted connection is no longer called as');
  await management.deleteConnection('con-a');
  t.equal(await management.connection('nope'), undefined);
});
