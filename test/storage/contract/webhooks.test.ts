// Storage contract, both drivers: webhook endpoints, deliveries with their attempt log, run notices and a run's subscriber states.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../../storage/records/webhooks.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, seedWorkspace } from './seed.js';

const drivers = await useStorageDrivers(t);

const endpoint = (id: string, over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id,
  orgId: 'org-1',
  url: `https://hooks.example.com/${id}`,
  secretSealed: Buffer.from([1, 0, 255, 7]),
  events: ['trigger.run.settled'],
  active: true,
  createdBy: 'u-1',
  createdAt: 10,
  ...over,
});

const delivery = (id: string, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  endpointId: 'ep-1',
  eventType: 'trigger.run.settled',
  payload: '{"z":1,"a":{"b":[2,1]}}',
  status: 'pending',
  attempts: 0,
  nextAttemptAt: 10,
  lastStatus: null,
  lastError: null,
  createdAt: 10,
  updatedAt: 10,
  runId: null,
  ...over,
});

contract(t, drivers, 'webhook endpoints: every field back (sealed bytes, events in order, booleans), active lists, organizations with endpoints', async (t, db) => {
  await seedWorkspace(db, { otherOrganization: true });
  const { webhooks } = db.repos;
  t.equal(await webhooks.hasActiveEndpoints('org-1'), false);
  const first = endpoint('ep-B', { events: ['session.completed', 'approval.requested', 'a'], createdAt: FAR_FUTURE, createdBy: null });
  await webhooks.insertEndpoint(first);
  t.strictSame(await webhooks.endpoint('ep-B'), first, 'event types in the order written');
  t.ok(Buffer.isBuffer((await webhooks.endpoint('ep-B'))!.secretSealed));
  t.equal(await webhooks.endpoint('nope'), undefined);
  await webhooks.insertEndpoint(endpoint('ep-a', { createdAt: 5, active: false }));
  await webhooks.insertEndpoint(endpoint('ep-0', { createdAt: 5, events: [] }));
  await webhooks.insertEndpoint(endpoint('ep-x', { orgId: 'org-2', createdAt: 3, active: false }));
  t.ok(isUniqueViolation(await webhooks.insertEndpoint(endpoint('ep-a')).catch((e: unknown) => e)));
  t.equal(constraintKind(await webhooks.insertEndpoint(endpoint('ep-y', { orgId: 'org-none' })).catch((e: unknown) => e)), 'foreign_key');

  t.strictSame((await webhooks.endpointsOfOrganization('org-1')).map((e) => e.id), ['ep-0', 'ep-a', 'ep-B'], 'creation time, then id in byte order');
  t.strictSame((await webhooks.activeEndpoints('org-1')).map((e) => [e.id, e.active, e.events]), [['ep-0', true, []], ['ep-B', true, first.events]]);
  t.equal((await webhooks.endpoint('ep-a'))!.active, false);
  t.equal(await webhooks.hasActiveEndpoints('org-1'), true);
  t.equal(await webhooks.hasActiveEndpoints('org-2'), false, 'an inactive endpoint does not count');
  t.strictSame(await webhooks.organizationsWithEndpoints(), [{ orgId: 'org-1', since: 5 }], 'the oldest active endpoint');

  t.equal(await webhooks.deleteEndpoint('ep-0'), true);
  t.equal(await webhooks.deleteEndpoint('ep-0'), false);
  t.strictSame(await webhooks.organizationsWithEndpoints(), [{ orgId: 'org-1', since: FAR_FUTURE }]);
});

contract(t, drivers, 'webhook deliveries: payload text verbatim, attempts recorded with their delivery, newest-first pages, cascade on delete', async (t, db) => {
  await seedWorkspace(db);
  const { webhooks } = db.repos;
  await webhooks.insertEndpoint(endpoint('ep-1'));
  await webhooks.insertEndpoint(endpoint('ep-2'));
  // Whitespace, key order and escapes as signed: the text is sent again byte for byte.
  const payload = '{ "z": 1,\n  "a": "caf\\u00e9 \u2028", "n": null }';
  const d1 = delivery('del-1', { payload, createdAt: FAR_FUTURE, updatedAt: FAR_FUTURE, runId: 'run-x', nextAttemptAt: FAR_FUTURE });
  await webhooks.insertDelivery(d1);
  t.strictSame(await webhooks.delivery('del-1'), d1);
  t.equal(await webhooks.delivery('nope'), undefined);
  t.ok(isUniqueViolation(await webhooks.insertDelivery(d1).catch((e: unknown) => e)));
  for (const [id, createdAt] of [['del-B', 5], ['del-a', 5], ['del-0', 7], ['del-c', 1]] as const) {
    await webhooks.insertDelivery(delivery(id, { createdAt, updatedAt: createdAt }));
  }
  await webhooks.insertDelivery(delivery('del-other', { endpointId: 'ep-2' }));

  const outcome = { id: 'del-B', status: 'failed' as const, attempts: 1, nextAttemptAt: null, lastStatus: 500, lastError: 'HTTP 500', updatedAt: 20 };
  await webhooks.recordAttempt(outcome, { deliveryId: 'del-B', attempt: 1, attemptedAt: 19, statusCode: 500, error: 'HTTP 500', durationMs: 120 });
  await webhooks.recordAttempt({ ...outcome, id: 'del-a', status: 'delivered', lastStatus: 204, lastError: null }, {
    deliveryId: 'del-a', attempt: 2, attemptedAt: 18, statusCode: 204, error: null, durationMs: 3,
  });
  await webhooks.recordAttempt({ ...outcome, id: 'del-a' }, { deliveryId: 'del-a', attempt: 1, attemptedAt: 17, statusCode: null, error: 'timeout', durationMs: 10_000 });
  t.strictSame(await webhooks.delivery('del-B'), { ...delivery('del-B', { createdAt: 5 }), ...outcome });
  t.strictSame((await webhooks.pendingDeliveryIds('ep-1')).sort(), ['del-0', 'del-1', 'del-c']);
  t.strictSame(await webhooks.pendingDeliveryIds('ep-none'), []);
  t.strictSame(
    (await webhooks.attemptsOf(['del-a', 'del-B', 'del-none'])).map((a) => [a.deliveryId, a.attempt, a.statusCode, a.error, a.durationMs]),
    [['del-B', 1, 500, 'HTTP 500', 120], ['del-a', 1, null, 'timeout', 10_000], ['del-a', 2, 204, null, 3]],
    'by delivery id in byte order, then attempt number',
  );
  t.strictSame(await webhooks.attemptsOf([]), []);
  const duplicate = await webhooks.recordAttempt(outcome, { deliveryId: 'del-B', attempt: 1, attemptedAt: 30, statusCode: 500, error: null, durationMs: 1 }).catch((e: unknown) => e);
  t.ok(isUniqueViolation(duplicate), 'one row per attempt number');

  const pages: string[][] = [];
  let before: { createdAt: number; id: string } | null = null;
  for (;;) {
    const page = await webhooks.deliveriesPage('ep-1', before, 2);
    if (page.length === 0) break;
    pages.push(page.map((d) => d.id));
    before = { createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id };
  }
  t.strictSame(pages, [['del-1', 'del-0'], ['del-a', 'del-B'], ['del-c']], 'newest first, ties by id descending in byte order');

  t.equal(await webhooks.deleteEndpoint('ep-1'), true);
  t.equal(await webhooks.delivery('del-a'), undefined, 'deliveries go with their endpoint');
  t.strictSame(await webhooks.attemptsOf(['del-a', 'del-B']), [], 'and their attempt log');
  t.ok(await webhooks.delivery('del-other'));
});

/** Runs of trg-1 (org-1) and one firing's results over sessions ses-1 (two executions) and ses-2 (none). */
async function seedRuns(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db);
  const results = JSON.stringify([
    { automationId: 'auto-1', position: 0, status: 'started', sessionId: 'ses-1' },
    { automationId: 'auto-2', position: 1, status: 'skipped', code: 'not_entitled' },
    { automationId: 'auto-3', position: 2, status: 'started', sessionId: 'ses-2' },
  ]);
  await db.exec(`
    INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES ('ses-2', 'org-1', 'dom-1', 'auto-1', 'domain', 1, 1);
    INSERT INTO executions (id, session_id, position, status, error_code, created_at, updated_at, settled_at) VALUES
      ('ex-2', 'ses-1', 1, 'running', NULL, 2, 2, NULL),
      ('ex-1', 'ses-1', 0, 'failed', 'model_error', 1, 1, ${FAR_FUTURE});
    INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at, results) VALUES
      ('run-1', 'trg-1', 'org-1', 'api', 'partial', 100, '${results}'),
      ('run-B', 'trg-1', 'org-1', 'api', 'succeeded', 200, '[]'),
      ('run-a', 'trg-1', 'org-1', 'api', 'succeeded', 200, '[]'),
      ('run-0', 'trg-1', 'org-1', 'api', 'succeeded', 50, '[]');`);
}

contract(t, drivers, 'webhook run notices: announced once, unannounced runs since a time in order; a run\'s subscribers with their first execution', async (t, db) => {
  await seedRuns(db);
  const { webhooks } = db.repos;
  t.strictSame(await webhooks.unannouncedRuns('org-1', 100, 10), ['run-1', 'run-B', 'run-a'], 'since 100 inclusive, by time then id in byte order');
  t.strictSame(await webhooks.unannouncedRuns('org-1', 0, 2), ['run-0', 'run-1'], 'the limit');
  t.equal(await webhooks.insertRunNotice('run-1', 'org-1', 300), true);
  t.equal(await webhooks.insertRunNotice('run-1', 'org-1', 301), false, 'already announced');
  t.equal(constraintKind(await webhooks.insertRunNotice('run-none', 'org-1', 1).catch((e: unknown) => e)), 'foreign_key', 'only the duplicate is swallowed');
  t.strictSame(await webhooks.unannouncedRuns('org-1', 100, 10), ['run-B', 'run-a']);
  t.strictSame(await webhooks.unannouncedRuns('org-2', 0, 10), []);

  t.strictSame(await webhooks.runState('run-1'), [
    { automationId: 'auto-1', position: 0, startStatus: 'started', code: null, sessionId: 'ses-1', executionStatus: 'failed', errorCode: 'model_error', settledAt: FAR_FUTURE },
    { automationId: 'auto-2', position: 1, startStatus: 'skipped', code: 'not_entitled', sessionId: null, executionStatus: null, errorCode: null, settledAt: null },
    { automationId: 'auto-3', position: 2, startStatus: 'started', code: null, sessionId: 'ses-2', executionStatus: null, errorCode: null, settledAt: null },
  ], 'results order, the session\'s first execution, integers as numbers');
  t.strictSame(await webhooks.runState('run-B'), []);
  t.strictSame(await webhooks.runState('nope'), []);
});
