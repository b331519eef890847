// Storage contract, both drivers: inbound event deliveries, the metrics gauges and the operations view's counts.
import t from 'tap';
import { isUniqueViolation } from '../../../storage/port/errors.js';
import type { EventDelivery } from '../../../storage/records/event-deliveries.js';
import { contract, useStorageDrivers, type DriverUnderTest } from '../../helpers/storage-drivers.js';
import { domain, FAR_FUTURE, seedWorkspace } from './seed.js';

const drivers = await useStorageDrivers(t);

contract(t, drivers, 'event deliveries: recorded once per (trigger, webhook-id); newest first, ties by id descending, limited', async (t, db) => {
  const { eventDeliveries } = db.repos;
  await seedWorkspace(db);
  const fired: EventDelivery = { triggerId: 'trg-1', messageId: 'msg-B', orgId: 'org-1', status: 'fired', reason: null, runId: 'run-1', receivedAt: 5 };
  await eventDeliveries.insert(fired);
  await eventDeliveries.insert({ ...fired, messageId: 'msg-a', status: 'skipped', reason: 'FILTER_MISS', runId: null });
  await eventDeliveries.insert({ ...fired, messageId: 'msg-0', receivedAt: FAR_FUTURE });
  await eventDeliveries.insert({ ...fired, messageId: 'msg-old', receivedAt: 1 });
  t.strictSame(await eventDeliveries.delivery('trg-1', 'msg-B'), fired);
  t.strictSame((await eventDeliveries.delivery('trg-1', 'msg-a'))!.reason, 'FILTER_MISS');
  t.equal(await eventDeliveries.delivery('trg-1', 'msg-none'), undefined);
  t.equal(await eventDeliveries.delivery('trg-other', 'msg-B'), undefined);
  const redelivery = await eventDeliveries.insert({ ...fired, receivedAt: 9 }).catch((e: unknown) => e);
  t.ok(isUniqueViolation(redelivery), 'a redelivered webhook-id is a unique violation');
  t.equal((await eventDeliveries.delivery('trg-1', 'msg-B'))!.receivedAt, 5, 'the first record stays');
  t.strictSame((await eventDeliveries.recent('trg-1', 3)).map((d) => d.messageId), ['msg-0', 'msg-a', 'msg-B'], '"msg-a" > "msg-B" in byte order');
  t.strictSame(await eventDeliveries.recent('trg-other', 3), []);
});

/** Executions, approvals, runs, webhook deliveries and timers in org-1 and org-2, written in SQL both engines accept. */
async function seedActivity(db: DriverUnderTest): Promise<void> {
  await seedWorkspace(db, { otherOrganization: true });
  await db.repos.tenancy.insertDomain(domain('dom-2', 'org-2', { name: 'Other', createdAt: 1 }));
  const execution = (id: string, session: string, position: number, status: string) =>
    `INSERT INTO executions (id, session_id, position, status, created_at, updated_at) VALUES ('${id}', '${session}', ${position}, '${status}', 1, 1);`;
  const approval = (id: string, org: string, session: string, execution: string, status: string) =>
    `INSERT INTO approvals (id, org_id, session_id, execution_id, kind, status, created_at) VALUES ('${id}', '${org}', '${session}', '${execution}', 'turn', '${status}', 1);`;
  const run = (id: string, trigger: string, org: string, at: number) =>
    `INSERT INTO trigger_runs (id, trigger_id, org_id, source, outcome, created_at) VALUES ('${id}', '${trigger}', '${org}', 'api', 'accepted', ${at});`;
  const delivery = (id: string, endpoint: string, status: string, attempts: number, createdAt: number, updatedAt: number) =>
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload, status, attempts, created_at, updated_at)
     VALUES ('${id}', '${endpoint}', 'run.settled', '{}', '${status}', ${attempts}, ${createdAt}, ${updatedAt});`;
  const timer = (id: string, kind: string, due: number, fired: number | null) =>
    `INSERT INTO timers (id, kind, target_id, due_at, created_at, fired_at) VALUES ('${id}', '${kind}', '${id}-target', ${due}, 1, ${fired ?? 'NULL'});`;
  await db.exec(`
    INSERT INTO automations (id, org_id, domain_id, kind, name, created_at, updated_at) VALUES ('auto-2', 'org-2', 'dom-2', 'agent', 'Agent', 1, 1);
    INSERT INTO sessions (id, org_id, domain_id, automation_id, visibility, created_at, updated_at) VALUES
      ('ses-2', 'org-1', 'dom-1', 'auto-1', 'domain', 1, 1), ('ses-x', 'org-2', 'dom-2', 'auto-2', 'domain', 1, 1);
    INSERT INTO triggers (id, org_id, domain_id, type, name, created_at) VALUES ('trg-x', 'org-2', 'dom-2', 'api', 'Fire', 1);
    ${execution('e-1', 'ses-1', 0, 'queued')} ${execution('e-2', 'ses-1', 1, 'running')} ${execution('e-3', 'ses-2', 0, 'queued')}
    ${execution('e-4', 'ses-2', 1, 'suspended')} ${execution('e-5', 'ses-2', 2, 'completed')} ${execution('e-6', 'ses-x', 0, 'resume_queued')}
    ${approval('a-1', 'org-1', 'ses-2', 'e-4', 'pending')} ${approval('a-2', 'org-1', 'ses-2', 'e-4', 'pending')}
    ${approval('a-3', 'org-1', 'ses-1', 'e-1', 'approved')} ${approval('a-4', 'org-2', 'ses-x', 'e-6', 'pending')}
    ${run('r-1', 'trg-1', 'org-1', 100)} ${run('r-2', 'trg-1', 'org-1', 200)} ${run('r-3', 'trg-1', 'org-1', 99)} ${run('r-4', 'trg-x', 'org-2', 500)}
    INSERT INTO webhook_endpoints (id, org_id, url, secret_sealed, created_at) VALUES
      ('we-1', 'org-1', 'https://hooks.example/1', ${db.blob('00ff')}, 1), ('we-x', 'org-2', 'https://hooks.example/x', ${db.blob('01')}, 1);
    ${delivery('d-1', 'we-1', 'failed', 3, 100, 150)} ${delivery('d-2', 'we-1', 'pending', 1, 100, 170)} ${delivery('d-3', 'we-1', 'pending', 0, 100, 999)}
    ${delivery('d-4', 'we-1', 'delivered', 2, 100, 990)} ${delivery('d-5', 'we-1', 'failed', 3, 50, 995)} ${delivery('d-6', 'we-x', 'failed', 3, 100, 996)}
    ${timer('t-1', 'cron', 10, null)} ${timer('t-2', 'cron', 20, null)} ${timer('t-3', 'approval', 15, null)}
    ${timer('t-4', 'approval', 30, null)} ${timer('t-5', 'cron', 5, 6)}`);
}

const byKey = <T extends { status?: string; kind?: string }>(rows: T[]) => [...rows].sort((a, b) => ((a.status ?? a.kind)! < (b.status ?? b.kind)! ? -1 : 1));

contract(t, drivers, 'gauges: pending deliveries, due unfired timers by kind, unsettled executions by status', async (t, db) => {
  const { gauges } = db.repos;
  t.equal(await gauges.pendingDeliveries(), 0, 'an empty database counts 0');
  t.strictSame(await gauges.dueTimers(100), []);
  t.strictSame(await gauges.unsettledExecutions(), []);
  await seedActivity(db);
  t.equal(await gauges.pendingDeliveries(), 2);
  t.strictSame(byKey(await gauges.dueTimers(20)), [{ kind: 'approval', count: 1 }, { kind: 'cron', count: 2 }], 'due at or before now; fired ones left out');
  t.strictSame(byKey(await gauges.unsettledExecutions()), [
    { status: 'queued', count: 2 }, { status: 'resume_queued', count: 1 }, { status: 'running', count: 1 },
  ]);
});

contract(t, drivers, 'operations: one organization\'s unsettled executions, pending approvals, fires and webhook failures since a time', async (t, db) => {
  const { operations } = db.repos;
  t.strictSame(await operations.awaitingApproval('org-1'), { executions: 0, approvals: 0 });
  t.strictSame(await operations.webhooksSince('org-1', 0), { failed: 0, retrying: 0, lastFailureAt: null }, 'no deliveries: zeros and a null time');
  await seedActivity(db);
  t.strictSame(byKey(await operations.unsettledExecutions('org-1')), [{ status: 'queued', count: 2 }, { status: 'running', count: 1 }]);
  t.strictSame(await operations.unsettledExecutions('org-none'), []);
  t.strictSame(await operations.awaitingApproval('org-1'), { executions: 1, approvals: 2 });
  t.equal(await operations.firesSince('org-1', 100), 2, 'created at or after the time, this organization\'s triggers only');
  t.equal(await operations.firesSince('org-2', 0), 1);
  t.strictSame(await operations.webhooksSince('org-1', 100), { failed: 1, retrying: 1, lastFailureAt: 170 });
  t.strictSame(await operations.webhooksSince('org-1', 0), { failed: 2, retrying: 1, lastFailureAt: 995 });
  t.strictSame(await operations.webhooksSince('org-2', 0), { failed: 1, retrying: 0, lastFailureAt: 996 });
});
