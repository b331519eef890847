// POST /api/v1/triggers type event: adapter, catalog event, rollout flag, provider-app prerequisites, connection, filter.
import t, { type Test } from 'tap';
import { isSigningSecret } from '../../../runtime/webhooks/standard-webhooks.js';
import { startTriggerServer, type TriggerServer } from './trigger-fixture.js';

function eventBody(f: TriggerServer, overrides: Record<string, unknown> = {}) {
  return {
    type: 'event',
    domainId: f.refs.sales,
    name: 'Signups',
    sourceIntegrationId: 'crm',
    connectionId: f.refs['crm-conn'],
    eventType: 'contact.created',
    subscribers: [f.refs.enrich],
    ...overrides,
  };
}

async function refused(t: Test, f: TriggerServer, overrides: Record<string, unknown>, status: number, path?: string) {
  const { repos } = f.server.service.store;
  const orgId = (await repos.tenancy.domain(f.refs.sales!))!.orgId;
  const before = (await repos.triggers.triggersOfOrganization(orgId)).length;
  const answer = await f.create('ada', eventBody(f, overrides));
  t.equal(answer.status, status, JSON.stringify(overrides));
  if (path !== undefined) t.equal(answer.json.error.details?.issues?.[0]?.path, path);
  t.equal((await repos.triggers.triggersOfOrganization(orgId)).length, before, 'nothing committed');
  return answer;
}

t.test('a valid event trigger: created with its subscription; an omitted endpointSecret is minted and returned once', async (t) => {
  const f = await startTriggerServer(t);
  const answer = await f.create('ada', eventBody(f, { eventFilter: { field: 'contact.seats', operator: '>', value: 50 } }));
  t.equal(answer.status, 201);
  t.ok(isSigningSecret(answer.json.endpointSecret), 'a Standard Webhooks secret (whsec_ + base64)');
  const id = answer.json.trigger.id;
  const { repos } = f.server.service.store;
  t.same((await repos.triggers.subscribers(id)).map((s) => s.automationId), [f.refs.enrich]);
  t.notOk((await repos.triggers.trigger(id))!.endpointSecretSealed!.toString('latin1').includes(answer.json.endpointSecret.slice(6)), 'sealed at rest');
  t.equal(answer.json.trigger.config.hasEndpointSecret, true);
});

t.test('rollout flag: eventTriggers false for the organization is 403; absent means enabled', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const orgId = (await repos.tenancy.domain(f.refs.sales!))!.orgId;
  (await repos.tenancy.setRolloutFlags(orgId, { eventTriggers: false }));
  const answer = await refused(t, f, {}, 403);
  t.equal(answer.json.error.code, 'FORBIDDEN');
  t.equal((await f.create('ada', { type: 'api', domainId: f.refs.sales, name: 'still fine' })).status, 201, 'other types are not gated');
  (await repos.tenancy.setRolloutFlags(orgId, { eventTriggers: true }));
  t.equal((await f.create('ada', eventBody(f))).status, 201);
});

t.test('adapter and catalog: unknown integration 404; no events 400; unknown event type 400', async (t) => {
  const f = await startTriggerServer(t);
  await refused(t, f, { sourceIntegrationId: 'nope' }, 404);
  await refused(t, f, { sourceIntegrationId: 'notes', connectionId: f.refs['notes-conn'] }, 400, 'sourceIntegrationId');
  await refused(t, f, { eventType: 'contact.exploded' }, 400, 'eventType');
  const { repos } = f.server.service.store;
  const crm = (await repos.integrations.integration('crm'))!;
  (await repos.integrations.upsertIntegration({ ...crm, available: false }));
  await refused(t, f, {}, 404);
  (await repos.integrations.upsertIntegration(crm));
});

t.test('provider-app prerequisites: the event is signed (standard-webhooks) and the connection is connected', async (t) => {
  const f = await startTriggerServer(t);
  await refused(t, f, { eventType: 'contact.deleted' }, 400, 'eventType');
  await refused(t, f, { connectionId: f.refs['crm-unconnected'] }, 400, 'connectionId');
});

t.test('connection ownership: unknown or another organization\'s is 404; another integration or domain is 400', async (t) => {
  const f = await startTriggerServer(t);
  const unknown = await refused(t, f, { connectionId: '01a20378-0000-7000-8000-000000000000' }, 404);
  const foreign = await refused(t, f, { connectionId: f.refs['globex-crm'] }, 404);
  t.equal(foreign.text, unknown.text, 'uniform 404');
  await refused(t, f, { connectionId: f.refs['notes-conn'] }, 400, 'connectionId');
  await refused(t, f, { connectionId: f.refs['crm-support'] }, 400, 'connectionId');
});

t.test('filter: actor data, occurredAt, or a declared payload path; operator and value must fit', async (t) => {
  const f = await startTriggerServer(t);
  await refused(t, f, { eventFilter: { field: 'contact.phone', operator: 'equals', value: 'x' } }, 400, 'eventFilter.field');
  await refused(t, f, { eventFilter: { field: 'data.contact.seats', operator: '>', value: 1 } }, 400, 'eventFilter.field');
  await refused(t, f, { eventFilter: { field: 'actor.', operator: 'equals', value: 'x' } }, 400, 'eventFilter.field');
  await refused(t, f, { eventFilter: { field: 'contact.seats', operator: '>', value: '50' } }, 400, 'eventFilter.value');
  await refused(t, f, { eventFilter: { field: 'contact.tier', operator: 'contains', value: { a: 1 } } }, 400, 'eventFilter.value');
  await refused(t, f, { eventFilter: { field: 'occurredAt', operator: '<', value: 'yesterday' } }, 400, 'eventFilter.value');
  for (const eventFilter of [
    { field: 'contact.seats', operator: '<', value: 10 },
    { field: 'contact.email', operator: 'contains', value: '@acme.test' },
    { field: 'contact.tier', operator: 'not-equals', value: 'free' },
    { field: 'actor.email', operator: 'equals', value: 'ops@acme.test' },
    { field: 'actor', operator: 'not-equals', value: null },
    { field: 'occurredAt', operator: '>', value: '2026-01-01T00:00:00Z' },
  ]) {
    const answer = await f.create('ada', eventBody(f, { eventFilter }));
    t.equal(answer.status, 201, JSON.stringify(eventFilter));
    t.same(answer.json.trigger.config.eventFilter, eventFilter);
  }
});
