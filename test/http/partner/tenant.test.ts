// Customer-tenant calls: /api/v1 session and fire routes under /organizations/:orgId, acting as the X-Service-Subject person.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { staffedCustomer, startPartner } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

t.test('agent sessions through the tenant routes act as the named person, under the /api/v1 rules', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'tenant-co');
  const operator = await customer.vouch('op-1', 'operator');
  await customer.vouch('viewer-1', 'viewer');
  const base = `/organizations/${customer.orgId}/agents`;
  const as = (subject: string) => ({ 'x-service-subject': subject });

  const opened = await p.api('POST', `${base}/${customer.automation('welcome')}/sessions`, customer.key, { message: 'Hello there' }, as('op-1'));
  t.equal(opened.status, 202);
  t.match(opened.json, { sessionId: /^[0-9a-f-]{36}$/, executionId: /^[0-9a-f-]{36}$/ });
  await p.c.settle(opened.json.sessionId);
  const read = await p.api('GET', `${base}/sessions/${opened.json.sessionId}`, customer.key, undefined, as('op-1'));
  t.equal(read.status, 200);
  t.match(read.json, { sessionId: opened.json.sessionId, canParticipate: true, messages: [{ role: 'user', text: 'Hello there', author: { userId: operator.userId, isYou: true } }] });
  const row = (await sqlReader(p.c.server.service).get('SELECT created_by, org_id FROM sessions WHERE id = ?', opened.json.sessionId));
  t.same(row, { created_by: operator.userId, org_id: customer.orgId }, 'the session belongs to the person, in the customer');

  const appended = await p.api('POST', `${base}/sessions/${opened.json.sessionId}/messages`, customer.key, { message: 'Again' }, as('op-1'));
  t.equal(appended.status, 200);
  const viewerAppend = await p.api('POST', `${base}/sessions/${opened.json.sessionId}/messages`, customer.key, { message: 'Me too' }, as('viewer-1'));
  t.equal(viewerAppend.status, 403);
  t.equal(viewerAppend.json.error.code, 'SESSION_NOT_DRIVABLE', 'the personal-key rule 2, unchanged');
  const viewerOpen = await p.api('POST', `${base}/${customer.automation('welcome')}/sessions`, customer.key, { message: 'Hi' }, as('viewer-1'));
  t.equal(viewerOpen.status, 403, 'a viewer cannot run automations (rule 1)');
  // Cancel is mirrored too (issue 13): the same drive rule, the same answers.
  await p.c.settle(opened.json.sessionId);
  const cancelPath = `${base}/sessions/${opened.json.sessionId}/cancel`;
  t.equal((await p.api('POST', cancelPath, customer.key, {}, as('viewer-1'))).json.error.code, 'SESSION_NOT_DRIVABLE', 'a viewer may not cancel');
  const idle = await p.api('POST', cancelPath, customer.key, {}, as('op-1'));
  t.equal(idle.status, 409, 'the operator reaches the cancel service: nothing is left to cancel');
  t.equal((await p.api('POST', cancelPath, customer.key, {}, as('nobody'))).status, 404);
  const invalid = await p.api('POST', `${base}/${customer.automation('welcome')}/sessions`, customer.key, { message: '   ' }, as('op-1'));
  t.equal(invalid.status, 400, 'the same body schema');

  // An app lease of that customer is a credential too.
  const lease = await p.api('POST', '/token', customer.key, { orgId: customer.orgId, appId: p.refs['northwind-app'] });
  const viaLease = await p.api('GET', `${base}/sessions/${opened.json.sessionId}`, lease.json.token, undefined, as('op-1'));
  t.equal(viaLease.status, 200);
  await p.c.settle();
});

t.test('the subject and the organization are checked neutrally: unknown, missing, revoked and foreign all answer the same 404', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'neutral-co');
  const other = await staffedCustomer(p, 'other-co');
  const revoked = await customer.vouch('leaver', 'operator');
  await other.vouch('elsewhere', 'operator');
  await p.api('DELETE', `/organizations/${customer.orgId}/workers/${revoked.mappingId}`, customer.key);
  const welcome = customer.automation('welcome');
  const open = (orgId: string, headers: Record<string, string>, secret = customer.key) =>
    p.api('POST', `/organizations/${orgId}/agents/${welcome}/sessions`, secret, { message: 'hi' }, headers);

  const unknownOrg = await open(newId(), { 'x-service-subject': 'leaver' });
  t.equal(unknownOrg.status, 404);
  const cases = {
    'no subject header': await open(customer.orgId, {}),
    'an unknown subject': await open(customer.orgId, { 'x-service-subject': 'nobody' }),
    'a revoked subject': await open(customer.orgId, { 'x-service-subject': 'leaver' }),
    'another customer\'s subject': await open(customer.orgId, { 'x-service-subject': 'elsewhere' }),
    'an organization outside the platform': await open(p.refs.acme!, { 'x-service-subject': 'elsewhere' }),
    'another platform\'s key': await open(customer.orgId, { 'x-service-subject': 'elsewhere' }, p.refs['southwind-key']),
  };
  for (const [name, answer] of Object.entries(cases)) {
    t.equal(answer.status, 404, name);
    t.equal(answer.text, unknownOrg.text, `${name}: byte-identical`);
  }
  const otherLease = await p.api('POST', '/token', customer.key, { orgId: other.orgId, appId: p.refs['northwind-app'] });
  const crossLease = await open(customer.orgId, { 'x-service-subject': 'elsewhere' }, otherLease.json.token);
  t.equal(crossLease.text, unknownOrg.text, 'an app lease of another customer');
  const badKey = await open(customer.orgId, { 'x-service-subject': 'leaver' }, 'svp_nope');
  t.equal(badKey.status, 401, 'a bad credential is the uniform 401');
});

t.test('the trigger fire route as the named person: one session per subscriber, Run history, entitlement skips', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'fire-co');
  await customer.vouch('op-1', 'operator');
  const triggerId = newId();
  const store = p.c.server.service.store;
  await store.writer.submit(async (tx) => {
    (await tx.repos.triggers.insertTrigger({
      id: triggerId,
      orgId: customer.orgId,
      domainId: customer.domainId,
      type: 'api',
      name: 'Signup',
      active: true,
      config: {},
      endpointSecretSealed: null,
      createdBy: null,
      createdAt: p.clock.now(),
    }));
    (await tx.repos.triggers.replaceSubscriptions(triggerId, [customer.automation('welcome')]));
  });
  const fire = (key?: string) =>
    p.api('POST', `/organizations/${customer.orgId}/triggers/fire`, customer.key, { triggerId, input: { prompt: 'A new signup' } }, {
      'x-service-subject': 'op-1',
      ...(key ? { 'idempotency-key': key } : {}),
    });
  const fired = await fire('fire-1');
  t.equal(fired.status, 202);
  t.equal(fired.json.sessions.length, 1);
  t.equal(fired.json.sessions[0].automationId, customer.automation('welcome'));
  const replay = await fire('fire-1');
  t.equal(replay.headers.get('idempotency-replayed'), 'true', 'fire idempotency, unchanged');

  const disabled = await p.api('PATCH', `/organizations/${customer.orgId}/automations/${customer.automation('welcome')}/entitlement`, customer.key, { enabled: false });
  t.equal(disabled.status, 200);
  const skipped = await fire();
  t.equal(skipped.status, 202);
  t.same(skipped.json.sessions, [], 'a disabled automation is skipped');
  const runs = await p.api('GET', `/organizations/${customer.orgId}/triggers/${triggerId}/runs`, customer.key, undefined, { 'x-service-subject': 'op-1' });
  t.equal(runs.status, 200);
  t.match(JSON.stringify(runs.json), /ENTITLEMENT_DISABLED/, 'Run history says why');
  await p.c.settle();
});
