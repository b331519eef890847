// Storage contract, both drivers: partners, service keys, provisioning, leases, workers, support grants, entitlements.
import t from 'tap';
import { createHash } from 'node:crypto';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import type { Lease } from '../../../storage/records/leases.js';
import type { OnboardingRun, ProvisioningClaim } from '../../../storage/records/provisioning.js';
import type { WorkerMapping } from '../../../storage/records/workers.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, partner, seedWorkspace, user } from './seed.js';

const drivers = await useStorageDrivers(t);
const hash = (text: string) => createHash('sha256').update(text).digest();

contract(t, drivers, 'partners: record, configuration update keeps spend, quota spent only while some is left', async (t, { repos }) => {
  const { partners } = repos;
  const p = partner('p-1', { suspended: true, provisioningEnabled: false, quotaTotal: 2, templateId: 'tpl-x', createdAt: FAR_FUTURE });
  await partners.insertPartner(p);
  t.strictSame(await partners.partner('p-1'), p);
  t.equal(await partners.partner('nope'), undefined);
  t.equal(await partners.spendQuota('p-1'), true);
  await partners.updatePartner({ id: 'p-1', name: 'Renamed', suspended: false, provisioningEnabled: true, quotaTotal: 2, templateId: null });
  t.strictSame(await partners.partner('p-1'), { ...p, name: 'Renamed', suspended: false, provisioningEnabled: true, templateId: null, quotaUsed: 1 });
  t.equal(await partners.spendQuota('p-1'), true);
  t.equal(await partners.spendQuota('p-1'), false, 'exhausted: nothing written');
  t.equal((await partners.partner('p-1'))!.quotaUsed, 2);
  t.equal(await partners.spendQuota('nope'), false);
});

contract(t, drivers, 'partner keys and apps: by id, by hash, creation order, single revocation, unique hash', async (t, { repos }) => {
  const { partners } = repos;
  await partners.insertPartner(partner('p-1'));
  const key = { id: 'pk-B', partnerId: 'p-1', keyHash: hash('svp_1'), hint: 'svp_…1', provisioningEnabled: false, createdAt: 5, revokedAt: null };
  await partners.insertPartnerKey(key);
  await partners.insertPartnerKey({ ...key, id: 'pk-a', keyHash: hash('svp_2'), provisioningEnabled: true });
  await partners.insertPartnerKey({ ...key, id: 'pk-0', keyHash: hash('svp_3'), createdAt: 9 });
  t.strictSame(await partners.partnerKey('pk-B'), key, 'the hash comes back as the same bytes');
  t.strictSame(await partners.partnerKeyByHash(hash('svp_1')), key);
  t.equal(await partners.partnerKeyByHash(hash('other')), undefined);
  t.strictSame((await partners.partnerKeysOfPartner('p-1')).map((k) => k.id), ['pk-B', 'pk-a', 'pk-0'], 'creation time, then id in byte order ("pk-B" < "pk-a")');
  t.equal(await partners.revokePartnerKey('pk-B', 7), true);
  t.equal(await partners.revokePartnerKey('pk-B', 8), false, 'already revoked: the first time stays');
  t.equal((await partners.partnerKey('pk-B'))!.revokedAt, 7);
  t.ok(isUniqueViolation(await partners.insertPartnerKey({ ...key, id: 'pk-dup' }).catch((e: unknown) => e)), 'one key per hash');

  await partners.insertPartnerApp({ id: 'app-B', partnerId: 'p-1', name: 'B', createdAt: 2 });
  await partners.insertPartnerApp({ id: 'app-a', partnerId: 'p-1', name: 'A', createdAt: 2 });
  await partners.renamePartnerApp('app-B', 'B2');
  t.strictSame(await partners.partnerApp('app-B'), { id: 'app-B', partnerId: 'p-1', name: 'B2', createdAt: 2 });
  t.equal(await partners.partnerApp('nope'), undefined);
  t.strictSame((await partners.partnerAppsOfPartner('p-1')).map((a) => a.id), ['app-B', 'app-a']);
  t.strictSame(await partners.partnerAppsOfPartner('p-none'), []);
});

contract(t, drivers, 'partner templates: the definition as declared (key order kept), by ref, unique ref per partner', async (t, { repos }) => {
  const { partners } = repos;
  await partners.insertPartner(partner('p-1'));
  // Keys deliberately out of alphabetical and length order: jsonb would reorder them, json keeps them.
  const definition = { zeta: 1, agents: [{ ref: 'b' }, { ref: 'a' }], domainName: 'Support', a: { y: 'text with \u0000 NUL', b: null } };
  const template = { id: 'tpl-1', partnerId: 'p-1', ref: 'starter', suspended: false, definition, createdAt: 3 };
  await partners.insertPartnerTemplate(template);
  const stored = await partners.partnerTemplate('tpl-1');
  t.strictSame(stored, template);
  t.strictSame(Object.keys(stored!.definition as object), ['zeta', 'agents', 'domainName', 'a'], 'key order as written');
  t.strictSame(await partners.partnerTemplateByRef('p-1', 'starter'), template);
  t.equal(await partners.partnerTemplateByRef('p-1', 'other'), undefined);
  const updated = { b: 2, a: 1 };
  await partners.updatePartnerTemplate('tpl-1', updated, true);
  const after = await partners.partnerTemplate('tpl-1');
  t.strictSame(after, { ...template, definition: updated, suspended: true });
  t.strictSame(Object.keys(after!.definition as object), ['b', 'a']);
  await partners.insertPartnerTemplate({ ...template, id: 'tpl-0', ref: 'other', createdAt: 1 });
  t.strictSame((await partners.partnerTemplatesOfPartner('p-1')).map((x) => x.id), ['tpl-0', 'tpl-1']);
  t.ok(isUniqueViolation(await partners.insertPartnerTemplate({ ...template, id: 'tpl-2' }).catch((e: unknown) => e)), 'one template per (partner, ref)');
});

contract(t, drivers, 'sealed service keys: insert once (a second insert is refused quietly), replace', async (t, { repos }) => {
  const { serviceKeys } = repos;
  const key = { name: 'webhook-signing', sealed: Buffer.from([0, 1, 2, 255]), createdAt: 1, updatedAt: 1 };
  t.equal(await serviceKeys.get('webhook-signing'), undefined);
  t.equal(await serviceKeys.insert(key), true);
  t.equal(await serviceKeys.insert({ ...key, sealed: Buffer.from([9]) }), false, 'the first key stays');
  t.strictSame(await serviceKeys.get('webhook-signing'), key);
  await serviceKeys.replace('webhook-signing', Buffer.from([7, 7]), FAR_FUTURE);
  t.strictSame(await serviceKeys.get('webhook-signing'), { ...key, sealed: Buffer.from([7, 7]), updatedAt: FAR_FUTURE });
});

contract(t, drivers, 'provisioning: claims upserted by (key, idempotency key), found by actor; onboarding runs; single-use invitations', async (t, db) => {
  const { partners, provisioning, tenancy } = db.repos;
  await seedWorkspace(db, { partner: true });
  await partners.insertPartnerKey({ id: 'pk-1', partnerId: 'p-1', keyHash: hash('k'), hint: 'k', provisioningEnabled: true, createdAt: 1, revokedAt: null });
  const claim: ProvisioningClaim = {
    partnerKeyId: 'pk-1', key: 'idem-1', actorId: 'prov:1', fingerprint: hash('body'), state: 'in_progress',
    statusCode: null, orgId: null, createdAt: 1, expiresAt: FAR_FUTURE, updatedAt: 1,
  };
  await provisioning.upsertClaim(claim);
  t.strictSame(await provisioning.claim('pk-1', 'idem-1'), claim);
  const completed = { ...claim, state: 'completed' as const, statusCode: 201, orgId: 'org-1', updatedAt: 2 };
  await provisioning.upsertClaim(completed);
  t.strictSame(await provisioning.claimByActor('prov:1'), completed, 'the upsert replaced the projection');
  await provisioning.setClaimOrganization('prov:1', 'org-9', 3);
  t.strictSame(await provisioning.claim('pk-1', 'idem-1'), { ...completed, orgId: 'org-9', updatedAt: 3 });
  await provisioning.upsertClaim({ ...claim, key: 'idem-2', actorId: 'prov:2' });
  t.equal(await provisioning.countClaims('pk-1'), 2);
  t.equal(await provisioning.deleteClaim('prov:2'), true);
  t.equal(await provisioning.deleteClaim('prov:2'), false);
  t.equal(await provisioning.claimByActor('prov:2'), undefined);
  t.equal(await provisioning.countClaims('pk-1'), 1);

  const run: OnboardingRun = {
    id: 'run-a', orgId: 'org-1', partnerId: 'p-1', templateId: null, status: 'running',
    steps: [{ step: 'organization', status: 'completed' }], error: null, createdAt: 5, updatedAt: 5,
  };
  await provisioning.insertOnboardingRun(run);
  await provisioning.insertOnboardingRun({ ...run, id: 'run-B', templateId: 'tpl-1', steps: [] });
  t.strictSame(await provisioning.onboardingRun('run-a'), run);
  const failed = { status: 'failed' as const, steps: [...run.steps, { step: 'owner' as const, status: 'failed' as const }], error: 'OWNER_EXISTS', updatedAt: 6 };
  await provisioning.updateOnboardingRun({ id: 'run-a', ...failed });
  t.strictSame(await provisioning.onboardingRun('run-a'), { ...run, ...failed });
  t.equal((await provisioning.latestOnboardingRun('org-1'))!.id, 'run-a', 'same time: the greater id in byte order ("run-a" > "run-B")');
  t.equal(await provisioning.latestOnboardingRun('org-2'), undefined);
  t.equal(await provisioning.countOnboardingRuns('org-1'), 2);
  t.equal(await provisioning.onboardingRun('nope'), undefined);

  await tenancy.insertUser(user('u-owner'));
  const invitation = { id: 'inv-1', userId: 'u-owner', tokenHash: hash('invite'), expiresAt: 100, usedAt: null, createdAt: 1 };
  await provisioning.insertInvitation(invitation);
  t.strictSame(await provisioning.invitationByHash(hash('invite')), invitation);
  t.equal(await provisioning.invitationByHash(hash('other')), undefined);
  t.equal(await provisioning.useInvitation('inv-1', 100), false, 'expired at its expiry time');
  t.equal(await provisioning.useInvitation('inv-1', 50), true);
  t.equal(await provisioning.useInvitation('inv-1', 60), false, 'single use');
  t.equal((await provisioning.invitationByHash(hash('invite')))!.usedAt, 50);
});

contract(t, drivers, 'partner leases and worker mappings: by hash, sweep, ended with their mapping; one active mapping per subject', async (t, db) => {
  const { leases, workers, tenancy } = db.repos;
  await seedWorkspace(db, { partner: true });
  const lease: Lease = {
    id: 'l-1', partnerId: 'p-1', orgId: 'org-1', appId: 'app-1', kind: 'worker', partnerSubject: 'agent-7', mappingId: 'wm-1',
    tokenHash: hash('svt_1'), createdAt: 1, expiresAt: Number.MAX_SAFE_INTEGER,
  };
  await leases.insert(lease);
  await leases.insert({ ...lease, id: 'l-2', kind: 'app', partnerSubject: null, mappingId: null, tokenHash: hash('svt_2'), expiresAt: 10 });
  t.strictSame(await leases.byHash(hash('svt_1')), lease, 'the largest exact epoch number reads back unchanged');
  t.equal(await leases.byHash(hash('none')), undefined);
  t.equal(await leases.endLeasesOfMapping('wm-1', 20), 1);
  t.equal(await leases.endLeasesOfMapping('wm-1', 20), 0, 'already ended');
  t.equal(await leases.sweep(10), 1, 'expired at or before now');
  t.equal(await leases.sweep(20), 1);
  t.equal(await leases.byHash(hash('svt_1')), undefined);

  await tenancy.insertUser(user('u-2'));
  const mapping: WorkerMapping = {
    id: 'wm-1', partnerId: 'p-1', orgId: 'org-1', partnerSubject: 'agent-7', userId: 'u-1',
    domainRoles: [{ domainId: 'dom-1', role: 'operator', approver: true }], provisionedUser: true, createdAt: 5, updatedAt: null, revokedAt: null,
  };
  await workers.insert(mapping);
  await workers.insert({ ...mapping, id: 'wm-0', partnerSubject: 'agent-0', userId: 'u-2', provisionedUser: false, domainRoles: [] });
  t.strictSame(await workers.mapping('wm-1'), mapping);
  t.strictSame(await workers.activeBySubject('org-1', 'agent-7'), mapping);
  t.strictSame((await workers.activeOfOrganization('org-1')).map((m) => m.id), ['wm-0', 'wm-1']);
  t.strictSame(await workers.activeOfUser('org-1', 'u-1'), [mapping]);
  const twin = await workers.insert({ ...mapping, id: 'wm-twin' }).catch((e: unknown) => e);
  t.ok(isUniqueViolation(twin), 'a second active mapping of one subject is a unique violation');
  const roles = [{ domainId: 'dom-1', role: 'viewer' as const, approver: false }];
  t.equal(await workers.setDomainRoles('wm-1', roles, 6), true);
  t.strictSame(await workers.mapping('wm-1'), { ...mapping, domainRoles: roles, updatedAt: 6 });
  t.equal(await workers.revoke('wm-1', 7), true);
  t.equal(await workers.revoke('wm-1', 8), false);
  t.equal(await workers.setDomainRoles('wm-1', [], 9), false, 'a revoked mapping keeps its roles');
  t.strictSame(await workers.mapping('wm-1'), { ...mapping, domainRoles: roles, updatedAt: 7, revokedAt: 7 });
  t.equal(await workers.activeBySubject('org-1', 'agent-7'), undefined);
  await workers.insert({ ...mapping, id: 'wm-2', createdAt: 5 });
  t.equal((await workers.latestBySubject('org-1', 'agent-7'))!.id, 'wm-2', 'same time: the greater id');
  t.equal(await workers.latestBySubject('org-1', 'agent-none'), undefined);
});

contract(t, drivers, 'support grants and entitlement overrides: insert, read, revoke once; set, replace, clear', async (t, db) => {
  const { supportGrants, entitlements } = db.repos;
  await seedWorkspace(db, { partner: true });
  const grant = { id: 'g-1', orgId: 'org-1', partnerId: 'p-1', sessionId: 'ses-1', createdBy: 'u-1', createdAt: 1, expiresAt: FAR_FUTURE, revokedAt: null };
  await supportGrants.insert(grant);
  t.strictSame(await supportGrants.grant('g-1'), grant);
  t.equal(await supportGrants.grant('nope'), undefined);
  t.equal(await supportGrants.revoke('g-1', 5), true);
  t.equal(await supportGrants.revoke('g-1', 6), false);
  t.strictSame(await supportGrants.grant('g-1'), { ...grant, revokedAt: 5 });
  const noSession = await supportGrants.insert({ ...grant, id: 'g-2', sessionId: 'ses-none' }).catch((e: unknown) => e);
  t.equal(constraintKind(noSession), 'foreign_key');

  t.equal(await entitlements.override('org-1', 'auto-1'), undefined);
  await entitlements.set({ orgId: 'org-1', automationId: 'auto-1', enabled: false, updatedAt: 1 });
  t.strictSame(await entitlements.override('org-1', 'auto-1'), { orgId: 'org-1', automationId: 'auto-1', enabled: false, updatedAt: 1 });
  await entitlements.set({ orgId: 'org-1', automationId: 'auto-1', enabled: true, updatedAt: 2 });
  t.strictSame(await entitlements.overridesOfOrganization('org-1'), [{ orgId: 'org-1', automationId: 'auto-1', enabled: true, updatedAt: 2 }]);
  t.strictSame(await entitlements.overridesOfOrganization('org-2'), []);
  t.equal(await entitlements.clear('org-1', 'auto-1'), true);
  t.equal(await entitlements.clear('org-1', 'auto-1'), false);
  t.equal(await entitlements.override('org-1', 'auto-1'), undefined);
});
