// Storage contract, both drivers: automations (agents, setups, bindings, revisions, flows, versions, knowledge selections) and durable timers.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { allPages, automation, FAR_FUTURE, seedOrganizations } from './seed.js';

const drivers = await useStorageDrivers(t);

/** Keys out of alphabetical order, nested, with a NUL and a non-ASCII letter: what a user's JSON may hold. */
const userJson = { zeta: 'Zoë \u0000', properties: { b: { type: 'string' }, a: { type: 'number' } }, list: [3, { y: null, x: true }] };

contract(t, drivers, 'automations: fields round-trip, edits, publish, archive and unarchive, unique id, not found', async (t, db) => {
  await seedOrganizations(db);
  const { automations } = db.repos;
  // Archive columns are ignored on insert: a new automation is never archived.
  const a = automation('a-1', { kind: 'flow', description: 'Does things', publishedRevision: 3, entitledByDefault: false, createdBy: 'u-1', createdAt: FAR_FUTURE, updatedAt: FAR_FUTURE });
  await automations.insertAutomation({ ...a, archivedAt: 9, archivedRevision: 9 });
  t.strictSame(await automations.automation('a-1'), a);
  t.equal(await automations.automation('nope'), undefined);
  t.ok(isUniqueViolation(await automations.insertAutomation(automation('a-1')).catch((e: unknown) => e)), 'a duplicate id is a unique violation');
  t.equal(constraintKind(await automations.insertAutomation(automation('a-x', { domainId: 'dom-none' })).catch((e: unknown) => e)), 'foreign_key');

  await automations.updateAutomation({ id: 'a-1', domainId: 'dom-2', name: 'Renamed', description: null, entitledByDefault: true, updatedAt: 7 });
  t.strictSame(await automations.automation('a-1'), { ...a, domainId: 'dom-2', name: 'Renamed', description: null, entitledByDefault: true, updatedAt: 7 });
  await automations.renameAutomation('a-1', 'Again', 'Described', 8);
  t.match(await automations.automation('a-1'), { name: 'Again', description: 'Described', updatedAt: 8 });

  t.equal(await automations.archiveAutomation('a-1', 10), true);
  t.match(await automations.automation('a-1'), { publishedRevision: null, archivedAt: 10, archivedRevision: 3, updatedAt: 10 });
  t.equal(await automations.archiveAutomation('a-1', 11), false, 'already archived');
  t.equal(await automations.unarchiveAutomation('a-1', 12), true);
  t.match(await automations.automation('a-1'), { publishedRevision: 3, archivedAt: null, archivedRevision: null, updatedAt: 12 });
  t.equal(await automations.unarchiveAutomation('a-1', 13), false, 'not archived');
  await automations.archiveAutomation('a-1', 14);
  await automations.setPublishedRevision('a-1', 4, 15);
  t.match(await automations.automation('a-1'), { publishedRevision: 4, archivedAt: null, archivedRevision: null, updatedAt: 15 }, 'publishing unarchives');
  await automations.setPublishedRevision('a-1', null, 16);
  t.equal((await automations.automation('a-1'))!.publishedRevision, null);
  t.equal(await automations.archiveAutomation('nope', 1), false);
});

contract(t, drivers, 'automations: lists in creation then byte order; pages filter by kind, domain, archive state and membership', async (t, db) => {
  await seedOrganizations(db);
  const { automations } = db.repos;
  await automations.insertAutomation(automation('a-a', { createdAt: 5 }));
  await automations.insertAutomation(automation('a-B', { createdAt: 5, kind: 'flow' }));
  await automations.insertAutomation(automation('a-0', { createdAt: 9 }));
  await automations.insertAutomation(automation('a-2', { createdAt: 1, domainId: 'dom-2' }));
  await automations.insertAutomation(automation('a-9', { orgId: 'org-2', domainId: 'dom-9' }));
  await automations.archiveAutomation('a-0', 20);
  t.strictSame((await automations.automationsOfOrganization('org-1')).map((a) => a.id), ['a-2', 'a-B', 'a-a', 'a-0'], '"a-B" < "a-a" in bytes');
  t.strictSame((await automations.automationsOfDomain('dom-1')).map((a) => a.id), ['a-B', 'a-a', 'a-0']);
  t.strictSame(await automations.automationsOfDomain('dom-none'), []);

  type Filter = Parameters<typeof automations.automationsOfOrganizationPage>[2];
  const ids = async (filter: Filter) => (await automations.automationsOfOrganizationPage('org-1', 'u-1', filter, null, 10)).map((a) => a.id);
  const all = { kind: null, domainId: null, archived: null };
  const walk = await allPages((after, limit) => automations.automationsOfOrganizationPage('org-1', 'u-1', all, after, limit), (a) => a.id, 2);
  t.strictSame(walk.map((p) => p.map((a) => a.id)), [['a-B', 'a-a'], ['a-0']], 'dom-2 is not the user\'s');
  t.strictSame(await ids({ ...all, kind: 'flow' }), ['a-B']);
  t.strictSame(await ids({ ...all, archived: true }), ['a-0']);
  t.strictSame(await ids({ ...all, archived: false }), ['a-B', 'a-a']);
  t.strictSame(await ids({ ...all, domainId: 'dom-2' }), []);
});

contract(t, drivers, 'agent setups, bindings and knowledge selections: upserted, replaced exactly, lists of strings only', async (t, db) => {
  await seedOrganizations(db);
  const { automations } = db.repos;
  await automations.insertAutomation(automation('a-1'));
  t.equal(await automations.agentSetup('a-1'), undefined);
  const draft = { automationId: 'a-1', principles: 'Be kind', procedure: '1. read', model: 'builtin:procedure', approvalTools: ['b.send', 'a.read'], updatedAt: FAR_FUTURE };
  await automations.upsertAgentSetup(draft);
  t.strictSame(await automations.agentSetup('a-1'), draft);
  await automations.upsertAgentSetup({ ...draft, principles: 'Be brief', approvalTools: [], updatedAt: 2 });
  t.strictSame(await automations.agentSetup('a-1'), { ...draft, principles: 'Be brief', approvalTools: [], updatedAt: 2 });
  t.equal(constraintKind(await automations.upsertAgentSetup({ ...draft, automationId: 'a-none' }).catch((e: unknown) => e)), 'foreign_key');

  await automations.replaceAgentBindings('a-1', [{ integrationId: 'zendesk', policy: 'service' }, { integrationId: 'Github', policy: 'caller_required' }]);
  t.strictSame(await automations.agentBindings('a-1'), [
    { automationId: 'a-1', integrationId: 'Github', policy: 'caller_required' },
    { automationId: 'a-1', integrationId: 'zendesk', policy: 'service' },
  ], 'integration ids in byte order');
  await automations.replaceAgentBindings('a-1', [{ integrationId: 'zendesk', policy: 'caller_preferred' }]);
  t.strictSame(await automations.agentBindings('a-1'), [{ automationId: 'a-1', integrationId: 'zendesk', policy: 'caller_preferred' }]);
  const twice = [{ integrationId: 'x', policy: 'service' as const }, { integrationId: 'x', policy: 'service' as const }];
  t.ok(isUniqueViolation(await automations.replaceAgentBindings('a-1', twice).catch((e: unknown) => e)), 'a repeated integration is a unique violation');
  t.equal(constraintKind(await automations.replaceAgentBindings('a-1', [{ integrationId: 'x', policy: 'bogus' as 'service' }]).catch((e: unknown) => e)), 'check');
  t.strictSame((await automations.agentBindings('a-1')).map((b) => b.policy), ['caller_preferred'], 'a refused replacement changed nothing');
  await automations.replaceAgentBindings('a-1', []);
  t.strictSame(await automations.agentBindings('a-1'), []);

  t.equal(await automations.knowledgeSelection('a-1'), undefined);
  await automations.upsertKnowledgeSelection({ automationId: 'a-1', mode: 'modules', moduleIds: ['km-2', 'km-1'] });
  t.strictSame(await automations.knowledgeSelection('a-1'), { automationId: 'a-1', mode: 'modules', moduleIds: ['km-2', 'km-1'] });
  await automations.upsertKnowledgeSelection({ automationId: 'a-1', mode: 'org', moduleIds: [] });
  t.strictSame(await automations.knowledgeSelection('a-1'), { automationId: 'a-1', mode: 'org', moduleIds: [] });
  // A stored list with other values reads as its strings only, on both engines.
  await db.exec(`UPDATE knowledge_selections SET module_ids = '["km-1", 2, null, "km-3"]' WHERE automation_id = 'a-1'`);
  await db.exec(`UPDATE agent_setups SET approval_tools = '{"not":"a list"}' WHERE automation_id = 'a-1'`);
  t.strictSame((await automations.knowledgeSelection('a-1'))!.moduleIds, ['km-1', 'km-3']);
  t.strictSame((await automations.agentSetup('a-1'))!.approvalTools, []);
});

contract(t, drivers, 'agent revisions and flow versions: stored JSON keeps key order and text, newest first, pages below a number', async (t, db) => {
  await seedOrganizations(db);
  const { automations } = db.repos;
  await automations.insertAutomation(automation('a-1'));
  await automations.insertAutomation(automation('f-1', { kind: 'flow' }));
  t.equal(await automations.latestAgentRevision('a-1'), undefined);
  const revision = (n: number) => ({ automationId: 'a-1', revision: n, setup: { ...userJson, n }, belt: [{ integrationId: 'z', identityMode: 'service' }], changeNote: n === 1 ? null : `r${n}`, publishedBy: n === 1 ? null : 'u-1', createdAt: FAR_FUTURE - n });
  for (const n of [1, 2, 3]) await automations.insertAgentRevision(revision(n));
  const read = (await automations.agentRevision('a-1', 2))!;
  t.strictSame(read, revision(2));
  t.equal(JSON.stringify(read.setup), JSON.stringify(revision(2).setup), 'setup in stored key order, NUL kept');
  t.strictSame(await automations.latestAgentRevision('a-1'), revision(3));
  t.equal(await automations.agentRevision('a-1', 9), undefined);
  t.ok(isUniqueViolation(await automations.insertAgentRevision(revision(2)).catch((e: unknown) => e)), 'a revision number is taken once');
  const summary = ({ setup: _s, belt: _b, ...rest }: ReturnType<typeof revision>) => rest;
  t.strictSame(await automations.agentRevisionsPage('a-1', 3, 5), [summary(revision(2)), summary(revision(1))]);
  t.strictSame(await automations.agentRevisionsPage('a-1', 2_147_483_647, 1), [summary(revision(3))]);

  const version = (n: number) => ({ automationId: 'f-1', version: n, definition: { steps: [{ id: 's' }], inputs: userJson, output: null }, bindings: { zendesk: 'service', github: 'caller_required' }, createdAt: n * 10 });
  for (const n of [1, 2]) await automations.insertFlowVersion(version(n));
  const v = (await automations.flowVersion('f-1', 1))!;
  t.strictSame(v, version(1));
  t.equal(JSON.stringify(v.definition) + JSON.stringify(v.bindings), JSON.stringify(version(1).definition) + JSON.stringify(version(1).bindings), 'key order kept');
  t.strictSame(await automations.latestFlowVersion('f-1'), version(2));
  t.equal(await automations.flowVersion('f-1', 7), undefined);
  t.equal(await automations.latestFlowVersion('a-1'), undefined);
  t.strictSame(await automations.flowVersionsPage('f-1', 3, 10), [
    { automationId: 'f-1', version: 2, createdAt: 20 },
    { automationId: 'f-1', version: 1, createdAt: 10 },
  ]);
  t.strictSame(await automations.flowVersionsPage('f-1', 1, 10), []);
});

contract(t, drivers, 'timers: one unfired timer per kind and target, due in due order with exclusions, fired once', async (t, db) => {
  const { timers } = db.repos;
  const timer = (id: string, dueAt: number, over: Partial<{ kind: string; targetId: string; payload: unknown }> = {}) =>
    ({ id, kind: 'deadline', targetId: `tgt-${id}`, dueAt, payload: {}, createdAt: 1, ...over });
  t.equal(await timers.nextDueAt(['deadline'], [], 0), null, 'nothing scheduled');
  await timers.replace(timer('t-1', 300, { targetId: 'x', payload: { zeta: 1, a: [true, null] } }));
  await timers.replace(timer('t-2', 100));
  await timers.replace(timer('t-3', 200, { kind: 'retry' }));
  await timers.replace(timer('t-far', FAR_FUTURE));
  t.strictSame(await timers.get('t-1'), { id: 't-1', kind: 'deadline', targetId: 'x', dueAt: 300, payload: { zeta: 1, a: [true, null] }, createdAt: 1, firedAt: null, claimedBy: null, claimExpiresAt: null });
  t.equal(await timers.get('nope'), undefined);

  await timers.replace(timer('t-1b', 50, { targetId: 'x', payload: 'text' }));
  t.equal(await timers.get('t-1'), undefined, 'replaced: the old timer is gone');
  t.strictSame(await timers.pending('deadline', 'x'), { id: 't-1b', kind: 'deadline', targetId: 'x', dueAt: 50, payload: 'text', createdAt: 1, firedAt: null, claimedBy: null, claimExpiresAt: null });
  t.equal(await timers.markFired('t-1', 60), false, 'the replaced id cannot fire');
  t.ok(isUniqueViolation(await timers.replace(timer('t-2', 5, { targetId: 'other' })).catch((e: unknown) => e)), 'a timer id is taken once');

  t.strictSame((await timers.due(250, ['deadline', 'retry'], [], 10)).map((x) => x.id), ['t-1b', 't-2', 't-3'], 'due order');
  t.strictSame((await timers.due(250, ['deadline'], ['t-2'], 10)).map((x) => x.id), ['t-1b'], 'kinds and exclusions');
  t.strictSame((await timers.due(250, ['deadline', 'retry'], [], 2)).map((x) => x.id), ['t-1b', 't-2'], 'the limit holds');
  t.strictSame(await timers.due(250, [], [], 10), [], 'no kind: nothing');
  t.equal(await timers.nextDueAt(['deadline', 'retry'], ['t-1b'], 250), 100);
  t.equal(await timers.nextDueAt(['none'], [], 250), null);

  t.equal(await timers.markFired('t-1b', 60), true);
  t.equal(await timers.markFired('t-1b', 61), false, 'fired once');
  t.equal((await timers.get('t-1b'))!.firedAt, 60);
  t.equal(await timers.pending('deadline', 'x'), undefined, 'a fired timer is not pending');
  await timers.replace(timer('t-1c', 70, { targetId: 'x' }));
  t.equal((await timers.get('t-1b'))!.firedAt, 60, 'a fired timer stays beside its successor');
  t.equal(await timers.cancel('deadline', 'x'), true);
  t.equal(await timers.cancel('deadline', 'x'), false);
  t.equal(await timers.nextDueAt(['deadline'], ['t-2'], 250), FAR_FUTURE, 'epoch-ms far past 2^32 s');
});

contract(t, drivers, 'timer claims: a batch of due timers in due order, held until it lapses, then claimable again; fired once', async (t, db) => {
  const { timers } = db.repos;
  for (const [id, dueAt] of [['c-3', 30], ['c-1', 10], ['c-2', 20], ['c-4', 40], ['c-late', 500]] as const) {
    await timers.replace({ id, kind: 'k', targetId: id, dueAt, payload: {}, createdAt: 1 });
  }
  const claim = (owner: string, now: number, limit: number, excludeIds: string[] = []) =>
    timers.claimDue({ owner, now, expiresAt: now + 100, kinds: ['k'], excludeIds, limit });

  const a = await claim('node-a', 100, 2);
  t.strictSame(a.map((x) => [x.id, x.claimedBy, x.claimExpiresAt]), [['c-1', 'node-a', 200], ['c-2', 'node-a', 200]], 'the earliest, in due order');
  const b = await claim('node-b', 100, 10, ['c-4']);
  t.strictSame(b.map((x) => x.id), ['c-3'], 'another node gets what is unclaimed (exclusions and due time hold)');
  t.strictSame((await timers.due(100, ['k'], [], 10)).map((x) => x.id), ['c-4'], 'due answers only claimable timers');
  t.strictSame(await claim('node-b', 100, 10, ['c-4']), [], 'nothing left to claim');
  t.strictSame(await timers.claimDue({ owner: 'node-b', now: 100, expiresAt: 200, kinds: [], excludeIds: [], limit: 10 }), [], 'no kind: nothing');
  t.equal(await timers.nextDueAt(['k'], ['c-4'], 100), 200, 'next look: when the held claims lapse');
  t.equal(await timers.nextDueAt(['k'], [], 100), 40, 'or a claimable due timer, whichever is first');

  t.equal(await timers.markFired('c-1', 150), true, 'the holder fires its timer');
  t.equal(await timers.holdUntil('c-2', 'node-b', 900), false, 'only the holder moves a claim');
  t.equal(await timers.holdUntil('c-2', 'node-a', 250), true, 'a failed handler holds its timer until its retry');
  t.strictSame((await claim('node-b', 200, 10, ['c-4'])).map((x) => x.id), ['c-3'], 'at 200: node-b re-claims its own lapsed c-3; c-2 is held to 250, c-1 fired');
  const takeover = await claim('node-b', 250, 10, ['c-3', 'c-4']);
  t.strictSame(takeover.map((x) => [x.id, x.claimedBy, x.claimExpiresAt]), [['c-2', 'node-b', 350]], 'a lapsed claim is taken over');
  t.equal(await timers.markFired('c-2', 260), true, 'the new holder fires it');
  t.equal(await timers.markFired('c-2', 270), false, 'the late former holder cannot fire it again');

  await timers.replace({ id: 'c-3b', kind: 'k', targetId: 'c-3', dueAt: 5, payload: {}, createdAt: 2 });
  t.strictSame(await timers.pending('k', 'c-3'), { id: 'c-3b', kind: 'k', targetId: 'c-3', dueAt: 5, payload: {}, createdAt: 2, firedAt: null, claimedBy: null, claimExpiresAt: null }, 'a replaced claimed timer starts unclaimed');
  t.equal(await timers.markFired('c-3', 280), false, 'the replaced claimed id cannot fire');
  t.strictSame((await claim('node-a', 300, 10, ['c-3b'])).map((x) => x.id), ['c-4']);
  t.equal(await timers.releaseClaims(), 1, 'releasing drops the claims on unfired timers (c-4\'s; fired ones keep theirs)');
  t.strictSame((await timers.due(300, ['k'], [], 10)).map((x) => x.id), ['c-3b', 'c-4'], 'every unfired due timer is claimable again');
});
