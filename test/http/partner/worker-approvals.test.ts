// Worker approvals: the list a named worker may decide, deciding a turn approval and a run approval, refusals for others.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { crmCredentials } from '../sessions/conversation-fixture.js';
import { partnerWorkspace, staffedCustomer, startPartner, type PartnerEnv } from './partner-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

/** The template also carries a flow whose write step waits for a run approval. */
const workspace = (baseUrl: string) => {
  const manifest = partnerWorkspace(baseUrl);
  manifest.partners[0].templates[0].flows = [
    {
      ref: 'tagger',
      name: 'Tag contact',
      inputs: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      steps: [{ id: 'tag', tool: 'crm.update_contact', args: { id: '{{input.id}}', note: 'vip' }, approval: true }],
      bindings: { crm: 'caller_required' },
      publish: true,
    },
  ];
  return manifest;
};

async function workerLease(p: PartnerEnv, orgId: string, partnerSubject: string): Promise<string> {
  const answer = await p.api('POST', '/worker-token', p.refs['northwind-key']!, { orgId, appId: p.refs['northwind-app'], partnerSubject });
  if (answer.status !== 200) throw new Error(`worker-token answered ${answer.status}: ${answer.text}`);
  return answer.json.token;
}

t.test('a worker decides a turn approval it may see; one it may not decide is refused and never listed', async (t) => {
  const p = await startPartner(t, { manifest: workspace });
  const customer = await staffedCustomer(p, 'approvals-co');
  const opener = await customer.vouch('opener', 'operator');
  const boss = await customer.vouch('boss', 'operator', true);
  await customer.vouch('watcher', 'viewer');
  const opened = await p.api(
    'POST',
    `/organizations/${customer.orgId}/agents/${customer.automation('approver-agent')}/sessions`,
    customer.key,
    { message: '{"id": "c-1", "tier": "enterprise"}', callerCredentials: crmCredentials() },
    { 'x-service-subject': 'opener' },
  );
  t.equal(opened.status, 202);
  await p.c.settle();
  const sessionId: string = opened.json.sessionId;
  const approvalId = (await sqlReader(p.c.server.service).value("SELECT id FROM approvals WHERE session_id = ? AND status = 'pending'", sessionId)) as string;
  t.ok(approvalId, 'the turn waits on crm.update_contact');

  const watcher = await workerLease(p, customer.orgId, 'watcher');
  const bossLease = await workerLease(p, customer.orgId, 'boss');
  const watcherList = await p.api('GET', '/worker/approvals', watcher);
  t.equal(watcherList.status, 200);
  t.same(watcherList.json, { approvals: [], limit: 50, offset: 0, total: 0 }, 'a viewer who cannot decide sees nothing to decide');
  const refused = await p.api('POST', `/worker/approvals/sessions/${sessionId}`, watcher, { decision: 'approved' });
  t.equal(refused.status, 403, 'visible but not permitted: FORBIDDEN, as on the personal-key route');
  t.equal(refused.json.error.code, 'FORBIDDEN');

  const other = await staffedCustomer(p, 'stranger-co');
  await other.vouch('stranger', 'owner', true);
  const stranger = await workerLease(p, other.orgId, 'stranger');
  const invisible = await p.api('POST', `/worker/approvals/sessions/${sessionId}`, stranger, { decision: 'approved' });
  t.equal(invisible.status, 404, 'another customer\'s session is invisible');

  const listed = await p.api('GET', '/worker/approvals', bossLease);
  t.equal(listed.json.total, 1);
  t.match(listed.json.approvals[0], { approvalId, kind: 'turn', sessionId, runId: null, toolName: 'crm.update_contact', args: { id: 'c-1', tier: 'enterprise' }, automationName: 'Tier upgrader', domainId: customer.domainId });
  t.notOk(listed.text.includes('caller-canary'), 'caller material never appears');
  t.equal((await p.api('GET', '/worker/approvals?offset=1', bossLease)).json.approvals.length, 0);
  t.equal((await p.api('GET', '/worker/approvals?limit=101', bossLease)).status, 400, 'limit at most 100');
  t.equal((await p.api('GET', '/worker/approvals?limit=0', bossLease)).status, 400);
  t.equal((await p.api('GET', '/worker/approvals?offset=-1', bossLease)).status, 400);
  const openerLease = await workerLease(p, customer.orgId, 'opener');
  t.equal((await p.api('GET', '/worker/approvals', openerLease)).json.total, 1, 'the initiator of a user-routed call may decide it too');

  const stale = await p.api('POST', `/worker/approvals/sessions/${sessionId}`, bossLease, { decision: 'approved', approvalId: newId() });
  t.equal(stale.status, 409);
  t.equal(stale.json.error.code, 'APPROVAL_CONFLICT', 'a stale approvalId is a conflict');
  const decided = await p.api('POST', `/worker/approvals/sessions/${sessionId}`, bossLease, { decision: 'approved', approvalId, comment: 'ok by me' });
  t.equal(decided.status, 200);
  t.same(decided.json, { ok: true, approvalId, decision: 'approved' });
  await p.c.settle();
  const audit = (await sqlReader(p.c.server.service).get('SELECT status, decided_by, comment FROM approvals WHERE id = ?', approvalId));
  t.same(audit, { status: 'approved', decided_by: boss.userId, comment: 'ok by me' }, 'decided as the mapped person');
  t.ok(p.c.upstream.received.some((r) => r.method === 'PATCH'), 'the approved write ran');
  t.equal((await p.api('GET', '/worker/approvals', bossLease)).json.total, 0);
  t.equal((await sqlReader(p.c.server.service).value('SELECT initiated_by FROM approvals WHERE id = ?', approvalId)), opener.userId, 'the opener is the initiator');

  const appLease = await p.api('POST', '/token', customer.key, { orgId: customer.orgId, appId: p.refs['northwind-app'] });
  t.equal((await p.api('GET', '/worker/approvals', appLease.json.token)).status, 401, 'an app lease names no worker');
});

t.test('a worker decides a flow run approval at /worker/approvals/runs/:runId', async (t) => {
  const p = await startPartner(t, { manifest: workspace });
  const customer = await staffedCustomer(p, 'runs-co');
  await customer.vouch('opener', 'operator');
  const boss = await customer.vouch('boss', 'operator', true);
  await customer.vouch('watcher', 'viewer');
  const triggerId = newId();
  const store = p.c.server.service.store;
  await store.writer.submit(async (tx) => {
    await tx.repos.triggers.insertTrigger({ id: triggerId, orgId: customer.orgId, domainId: customer.domainId, type: 'api', name: 'Tag', active: true, config: {}, endpointSecretSealed: null, createdBy: null, createdAt: p.clock.now() });
    await tx.repos.triggers.replaceSubscriptions(triggerId, [customer.automation('tagger')]);
  });
  const fired = await p.api('POST', `/organizations/${customer.orgId}/triggers/fire`, customer.key, { triggerId, input: { id: 'c-9' }, callerCredentials: crmCredentials() }, { 'x-service-subject': 'opener' });
  t.equal(fired.status, 202);
  t.equal(fired.json.sessions.length, 1);
  await p.c.settle();
  const runId: string = fired.json.sessions[0].sessionId;

  const bossLease = await workerLease(p, customer.orgId, 'boss');
  const listed = await p.api('GET', '/worker/approvals', bossLease);
  t.equal(listed.json.total, 1);
  t.match(listed.json.approvals[0], { kind: 'run', runId, sessionId: runId, toolName: 'crm.update_contact' });
  const watcher = await workerLease(p, customer.orgId, 'watcher');
  t.equal((await p.api('POST', `/worker/approvals/runs/${runId}`, watcher, { decision: 'approved' })).status, 403);
  t.equal((await p.api('POST', `/worker/approvals/runs/${runId}`, bossLease, { decision: 'approved', editedArgs: {} })).status, 400, 'a run approval has no editedArgs');
  const decided = await p.api('POST', `/worker/approvals/runs/${runId}`, bossLease, { decision: 'rejected', comment: 'not vip' });
  t.equal(decided.status, 200);
  t.match(decided.json, { ok: true, decision: 'rejected', approvalId: listed.json.approvals[0].approvalId });
  await p.c.settle();
  t.match((await sqlReader(p.c.server.service).get('SELECT status, decided_by FROM approvals WHERE id = ?', decided.json.approvalId)), { status: 'rejected', decided_by: boss.userId });
  t.notOk(p.c.upstream.received.some((r) => r.method === 'PATCH'), 'the rejected write never ran');
  t.equal((await p.api('POST', `/worker/approvals/runs/${newId()}`, bossLease, { decision: 'approved' })).status, 404);
});
