// Entitlements: default, override and resolved standing per agent and flow; a disabled automation cannot be run.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { isEntitled } from '../../../runtime/partners/entitlements.js';
import { partnerWorkspace, staffedCustomer, startPartner } from './partner-fixture.js';

/** The template's gated agent defaults to not entitled: the platform default a partner overrides per customer. */
const workspace = (baseUrl: string) => {
  const manifest = partnerWorkspace(baseUrl);
  manifest.partners[0].templates[0].agents[1].entitled = false;
  return manifest;
};

t.test('GET lists default, override and resolved; PATCH sets an override; DELETE returns to the default', async (t) => {
  const p = await startPartner(t, { manifest: workspace });
  const customer = await staffedCustomer(p, 'entitled-co');
  const welcome = customer.automation('welcome');
  const gated = customer.automation('approver-agent');
  const path = `/organizations/${customer.orgId}`;
  const repos = p.c.server.service.store.repos;

  const listed = await p.api('GET', `${path}/entitlements`, customer.key);
  t.equal(listed.status, 200);
  const byId = (answer: typeof listed, id: string) => answer.json.entitlements.find((e: any) => e.automationId === id);
  t.match(byId(listed, welcome), { kind: 'agent', name: 'Welcome agent', domainId: customer.domainId, default: { enabled: true }, override: null, resolved: { enabled: true, source: 'default' } });
  t.match(byId(listed, gated), { default: { enabled: false }, override: null, resolved: { enabled: false, source: 'default' } });
  t.equal(listed.json.entitlements.length, 2);

  const off = await p.api('PATCH', `${path}/automations/${welcome}/entitlement`, customer.key, { enabled: false });
  t.equal(off.status, 200);
  t.match(off.json.entitlement, { default: { enabled: true }, override: { enabled: false }, resolved: { enabled: false, source: 'override' } });
  t.equal(await isEntitled(repos, customer.orgId, welcome), false);
  const on = await p.api('PATCH', `${path}/automations/${gated}/entitlement`, customer.key, { enabled: true });
  t.match(on.json.entitlement, { override: { enabled: true }, resolved: { enabled: true, source: 'override' } });
  t.equal(await isEntitled(repos, customer.orgId, gated), true);

  const cleared = await p.api('DELETE', `${path}/automations/${welcome}/entitlement`, customer.key);
  t.equal(cleared.status, 200);
  t.match(cleared.json.entitlement, { override: null, resolved: { enabled: true, source: 'default' } });
  t.equal(await isEntitled(repos, customer.orgId, welcome), true);
  t.equal(await isEntitled(repos, p.refs.acme!, welcome), false, 'never entitled in another organization');

  t.equal((await p.api('PATCH', `${path}/automations/${welcome}/entitlement`, customer.key, { enabled: 'no' })).status, 400);
  t.equal((await p.api('PATCH', `${path}/automations/${welcome}/entitlement`, customer.key, { enabled: true, extra: 1 })).status, 400, 'strict body');
  const unknown = await p.api('PATCH', `${path}/automations/${newId()}/entitlement`, customer.key, { enabled: true });
  const foreign = await p.api('PATCH', `${path}/automations/${p.refs.lookup}/entitlement`, customer.key, { enabled: true });
  t.equal(unknown.status, 404);
  t.equal(foreign.text, unknown.text, 'another organization\'s automation is the same 404');
});

t.test('a disabled automation cannot be run: opening a session is refused, enabling it lets the same call through', async (t) => {
  const p = await startPartner(t, { manifest: workspace });
  const customer = await staffedCustomer(p, 'gate-co');
  await customer.vouch('op-1', 'operator');
  const open = (automationId: string) =>
    p.api('POST', `/organizations/${customer.orgId}/agents/${automationId}/sessions`, customer.key, { message: 'hello' }, { 'x-service-subject': 'op-1' });
  const gated = customer.automation('approver-agent');
  const refused = await open(gated);
  t.equal(refused.status, 403, 'not entitled by default');
  t.equal(refused.json.error.code, 'FORBIDDEN');
  await p.api('PATCH', `/organizations/${customer.orgId}/automations/${customer.automation('welcome')}/entitlement`, customer.key, { enabled: false });
  t.equal((await open(customer.automation('welcome'))).status, 403, 'disabled by override');
  await p.api('DELETE', `/organizations/${customer.orgId}/automations/${customer.automation('welcome')}/entitlement`, customer.key);
  const allowed = await open(customer.automation('welcome'));
  t.equal(allowed.status, 202, 'back to the default: runs');
  t.equal(await p.count('sessions', 'org_id = ?', customer.orgId), 1, 'refused opens wrote nothing');
  await p.c.settle();
});
