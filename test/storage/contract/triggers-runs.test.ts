// Storage contract, both drivers: triggers and subscriptions, Run history, fire idempotency claims.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import type { NewTriggerRun } from '../../../storage/records/trigger-runs.js';
import { isClaimConflict } from '../../../storage/port/errors.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { allPages, automation, FAR_FUTURE, seedOrganizations, trigger } from './seed.js';

const drivers = await useStorageDrivers(t);

const run = (id: string, over: Partial<NewTriggerRun> = {}): NewTriggerRun => ({
  id, triggerId: 'trg-1', orgId: 'org-1', source: 'api', firedBy: null, outcome: 'accepted', unusedCredentialIntegrations: [],
  idempotencyKey: null, createdAt: 1_000, results: [], ...over,
});

/** org-1 (domains dom-1, dom-2; u-1 a member of dom-1 only), org-2 (dom-9), agents a-1..a-3 and trigger trg-1 through the repos. */
async function seed(db: DriverUnderTest): Promise<void> {
  await seedOrganizations(db);
  const { repos } = db;
  for (const id of ['a-1', 'a-2', 'a-3']) await repos.automations.insertAutomation(automation(id));
  await repos.triggers.insertTrigger(trigger('trg-1'));
}

contract(t, drivers, 'triggers: every field round-trips, config keeps its key order, edits, unique id, not found', async (t, db) => {
  await seed(db);
  const { triggers } = db.repos;
  const config = { sourceIntegrationId: 'github', zeta: 1, filter: { b: [2, 'x'], a: null }, cron: '0 9 * * 1' };
  const event = trigger('trg-e', { type: 'event', active: false, config, endpointSecretSealed: Buffer.from([0, 1, 254, 255]), createdBy: 'u-1', createdAt: FAR_FUTURE });
  await triggers.insertTrigger(event);
  const read = (await triggers.trigger('trg-e'))!;
  t.strictSame(read, event);
  t.strictSame(Object.keys(read.config), Object.keys(config), 'config in stored key order');
  t.equal(await triggers.trigger('nope'), undefined);
  t.ok(isUniqueViolation(await triggers.insertTrigger(trigger('trg-e')).catch((e: unknown) => e)), 'a duplicate id is a unique violation');

  const edit = { id: 'trg-e', domainId: 'dom-2', type: 'schedule' as const, name: 'Weekly', active: true, config: { cron: '* * * * *' }, endpointSecretSealed: null };
  await triggers.updateTrigger(edit);
  t.strictSame(await triggers.trigger('trg-e'), { ...event, ...edit }, 'owner, creator and creation time stay');
  t.equal(constraintKind(await triggers.insertTrigger(trigger('trg-x', { domainId: 'dom-none' })).catch((e: unknown) => e)), 'foreign_key');
});

contract(t, drivers, 'triggers: lists by organization and type in creation then byte order; pages see member domains only', async (t, db) => {
  await seed(db);
  const { triggers } = db.repos;
  await triggers.insertTrigger(trigger('trg-a', { createdAt: 5, type: 'schedule' }));
  await triggers.insertTrigger(trigger('trg-B', { createdAt: 5, type: 'schedule' }));
  await triggers.insertTrigger(trigger('trg-2', { createdAt: 5, domainId: 'dom-2' }));
  await triggers.insertTrigger(trigger('trg-9', { orgId: 'org-2', domainId: 'dom-9', createdAt: 2, type: 'schedule' }));
  t.strictSame((await triggers.triggersOfOrganization('org-1')).map((x) => x.id), ['trg-2', 'trg-B', 'trg-a', 'trg-1'], '"trg-B" < "trg-a" in bytes');
  t.strictSame((await triggers.triggersOfType('schedule')).map((x) => x.id), ['trg-9', 'trg-B', 'trg-a']);
  t.strictSame(await triggers.triggersOfOrganization('org-none'), []);

  const page = (filter: { domainId: string | null; type: 'schedule' | 'api' | 'event' | null }) => (after: { createdAt: number; id: string } | null, limit: number) =>
    triggers.triggersOfOrganizationPage('org-1', 'u-1', filter, after, limit);
  const walk = await allPages(page({ domainId: null, type: null }), (x) => x.id, 2);
  t.strictSame(walk.map((p) => p.map((x) => x.id)), [['trg-B', 'trg-a'], ['trg-1']], 'dom-2 is not the user\'s; pages continue after the cursor');
  t.strictSame((await page({ domainId: null, type: 'api' })(null, 10)).map((x) => x.id), ['trg-1']);
  t.strictSame(await page({ domainId: 'dom-2', type: null })(null, 10), [], 'a domain the user is not a member of shows nothing');
  t.strictSame(await triggers.triggersOfOrganizationPage('org-1', 'u-none', { domainId: null, type: null }, null, 10), []);
});

contract(t, drivers, 'subscriptions: replaced exactly, in firing order; repeats and unknown automations refused with nothing changed', async (t, db) => {
  await seed(db);
  const { triggers } = db.repos;
  await triggers.insertTrigger(trigger('trg-2'));
  await triggers.replaceSubscriptions('trg-1', ['a-2', 'a-1']);
  t.strictSame(await triggers.subscribers('trg-1'), [
    { triggerId: 'trg-1', automationId: 'a-2', position: 0 },
    { triggerId: 'trg-1', automationId: 'a-1', position: 1 },
  ]);
  await triggers.replaceSubscriptions('trg-1', ['a-3', 'a-2']);
  t.strictSame((await triggers.subscribers('trg-1')).map((s) => [s.automationId, s.position]), [['a-3', 0], ['a-2', 1]], 'a-1 gone, a-2 moved');
  await triggers.replaceSubscriptions('trg-2', ['a-2']);
  t.strictSame(await triggers.subscriptionsOfAutomation('a-2'), [
    { triggerId: 'trg-1', automationId: 'a-2', position: 1 },
    { triggerId: 'trg-2', automationId: 'a-2', position: 0 },
  ]);
  t.ok(isUniqueViolation(await triggers.replaceSubscriptions('trg-1', ['a-1', 'a-1']).catch((e: unknown) => e)), 'a repeated automation is a unique violation');
  t.equal(constraintKind(await triggers.replaceSubscriptions('trg-1', ['a-1', 'a-none']).catch((e: unknown) => e)), 'foreign_key');
  t.strictSame((await triggers.subscribers('trg-1')).map((s) => s.automationId), ['a-3', 'a-2'], 'a refused replacement changed nothing');
  await triggers.replaceSubscriptions('trg-1', []);
  t.strictSame(await triggers.subscribers('trg-1'), []);
  t.strictSame(await triggers.subscriptionsOfAutomation('a-9'), []);

  await db.repos.triggerRuns.insertRun(run('run-1', { triggerId: 'trg-2' }));
  t.equal(await triggers.deleteTrigger('trg-2'), true);
  t.equal(await triggers.deleteTrigger('trg-2'), false);
  t.strictSame(await triggers.subscriptionsOfAutomation('a-2'), [], 'subscriptions cascade');
  t.equal(await db.repos.triggerRuns.run('run-1'), undefined, 'runs cascade');
});

contract(t, drivers, 'trigger runs: fields round-trip, newest first with byte-order ties, keyset pages, counts', async (t, db) => {
  await seed(db);
  const runs = db.repos.triggerRuns;
  const full = run('run-full', { source: 'schedule', firedBy: 'u-1', outcome: 'partial', unusedCredentialIntegrations: ['zendesk', 'github'], idempotencyKey: 'k-1', createdAt: FAR_FUTURE });
  await runs.insertRun(full);
  const { results: _r, ...record } = full;
  t.strictSame(await runs.run('run-full'), record);
  t.equal(await runs.run('nope'), undefined);
  t.ok(isUniqueViolation(await runs.insertRun(run('run-full')).catch((e: unknown) => e)), 'a duplicate run id is a unique violation');
  t.equal(constraintKind(await runs.insertRun(run('run-x', { triggerId: 'trg-none' })).catch((e: unknown) => e)), 'foreign_key');

  for (const id of ['run-a', 'run-B', 'run-c']) await runs.insertRun(run(id, { createdAt: 7 }));
  await runs.insertRun(run('run-old', { createdAt: 3 }));
  const pages: string[][] = [];
  for (let before: { createdAt: number; id: string } | null = null; ;) {
    const page = await runs.page('trg-1', before, 2);
    if (page.length === 0) break;
    pages.push(page.map((r) => r.id));
    before = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
  }
  t.strictSame(pages, [['run-full', 'run-c'], ['run-a', 'run-B'], ['run-old']], 'newest first; ties by id descending in bytes ("run-a" > "run-B")');
  t.equal(await runs.countOfTrigger('trg-1'), 5);
  t.equal(await runs.countOfTrigger('trg-none'), 0);
});

contract(t, drivers, 'trigger runs: results unnest in firing order with their automation, positions as numbers', async (t, db) => {
  await seed(db);
  const runs = db.repos.triggerRuns;
  const started = { automationId: 'a-2', position: 0, status: 'started' as const, code: null, reason: null, sessionId: 'ses-9' };
  const failed = { automationId: 'a-gone', position: 1, status: 'failed' as const, code: 'NOT_FOUND', reason: 'deleted', sessionId: null };
  await runs.insertRun(run('run-b', { results: [started, failed] }));
  await runs.insertRun(run('run-A', { results: [{ ...started, automationId: 'a-1', sessionId: 'ses-1' }] }));
  await runs.insertRun(run('run-empty'));
  t.strictSame(await runs.resultsOf(['run-b', 'run-A', 'run-empty', 'run-none']), [
    { runId: 'run-A', automationId: 'a-1', position: 0, status: 'started', code: null, reason: null, sessionId: 'ses-1', automationName: 'Agent a-1', automationKind: 'agent' },
    { runId: 'run-b', ...started, automationName: 'Agent a-2', automationKind: 'agent' },
    { runId: 'run-b', ...failed, automationName: null, automationKind: null },
  ]);
  t.strictSame(await runs.resultsOf([]), []);
});

contract(t, drivers, 'trigger runs: pending session starts read oldest first, verbatim, and cleared once', async (t, db) => {
  await seed(db);
  const runs = db.repos.triggerRuns;
  const pending = [{ sessionId: 'ses-1', input: { zeta: 'é \u0000 nul', alpha: [1, { y: 2, b: null }] } }];
  await runs.insertRun(run('run-2', { createdAt: 20, pending }));
  await runs.insertRun(run('run-1', { createdAt: 10, pending: [{ sessionId: 'ses-0' }] }));
  await runs.insertRun(run('run-none', { createdAt: 5, pending: null }));
  const read = await runs.pendingRuns();
  t.strictSame(read.map((r) => r.id), ['run-1', 'run-2'], 'oldest first; a run without pending starts is not listed');
  t.equal(JSON.stringify(read[1]!.pending), JSON.stringify(pending), 'the plan keeps its key order and a NUL in text');
  t.equal(await runs.clearPending('run-1'), true);
  t.equal(await runs.clearPending('run-1'), false, 'already cleared');
  t.equal(await runs.clearPending('run-none'), false);
  t.strictSame((await runs.pendingRuns()).map((r) => r.id), ['run-2']);
});

contract(t, drivers, 'fire claims: one live claim per key and organization, the 202 body byte for byte, release and sweep', async (t, db) => {
  await seed(db);
  const { triggerRuns: runs, fireClaims: claims } = db.repos;
  t.equal(await claims.earliestExpiry(), null, 'no claim: no expiry');
  // Odd spacing and escapes: a replay must send exactly these bytes, never a re-serialization.
  const response = '{ "runId":"run-1" ,"sessions":[ {"automationId":"a-1","sessionId":"ses-\\u00e9"} ]}';
  const fingerprint = Buffer.from('00ff10ee', 'hex');
  await runs.insertRun(run('run-1', { idempotencyKey: 'key-1', createdAt: 50, claim: { key: 'key-1', fingerprint, response, expiresAt: FAR_FUTURE } }));
  t.strictSame(await claims.get('org-1', 'key-1'), {
    scope: 'org-1', key: 'key-1', fingerprint, state: 'completed', statusCode: 202, response, runId: 'run-1', leaseUntil: 50, createdAt: 50, expiresAt: FAR_FUTURE,
  });
  t.equal((await claims.get('org-1', 'key-1'))!.response, response, 'byte-identical body');
  t.equal(await claims.get('org-2', 'key-1'), undefined, 'another organization\'s key is another claim');

  const raced = await runs.insertRun(run('run-2', { claim: { key: 'key-1', fingerprint, response: '{}', expiresAt: 1 } })).catch((e: unknown) => e);
  t.ok(isClaimConflict(raced), 'a second claim of the key is a claim conflict (the fire service answers it as a replay)');
  t.ok(isUniqueViolation(raced), 'and a unique violation');
  t.equal(await runs.run('run-2'), undefined, 'the losing run is not written');
  t.notOk(isClaimConflict(await runs.insertRun(run('run-1')).catch((e: unknown) => e)), 'a duplicate run id is not a claim conflict');
  await db.repos.triggers.insertTrigger(trigger('trg-9', { orgId: 'org-2', domainId: 'dom-9' }));
  await runs.insertRun(run('run-9', { triggerId: 'trg-9', orgId: 'org-2', claim: { key: 'key-1', fingerprint, response: '{}', expiresAt: 30 } }));
  await runs.insertRun(run('run-3', { claim: { key: 'key-3', fingerprint, response: '{}', expiresAt: 20 } }));
  await runs.insertRun(run('run-4', { claim: { key: 'key-4', fingerprint, response: '{}', expiresAt: 40 } }));
  t.equal(await claims.count(), 4);
  t.equal(await claims.earliestExpiry(), 20);

  t.equal(await claims.sweepExpired(35, 1), 1, 'the limit holds');
  t.equal(await claims.get('org-1', 'key-3'), undefined, 'oldest expired first');
  t.equal(await claims.sweepExpired(35, 10), 1);
  t.equal(await claims.sweepExpired(35, 10), 0, 'nothing left expired');
  t.equal(await claims.earliestExpiry(), 40);
  t.ok(await runs.run('run-3'), 'the run stays in Run history');

  t.equal(await claims.delete('org-1', 'key-1'), true);
  t.equal(await claims.delete('org-1', 'key-1'), false);
  t.equal(await claims.count(), 1);
  await runs.insertRun(run('run-5', { claim: { key: 'key-1', fingerprint, response: '{"again":true}', expiresAt: 60 } }));
  t.equal((await claims.get('org-1', 'key-1'))!.runId, 'run-5', 'a released key can be claimed again');
});
