// Who flow calls run as (SPEC "Caller credentials rules" 5-7, 9, 10): caller grants from fire, none from schedules, expiry.
import t from 'tap';
import { newId } from '../../../runtime/ids.js';
import { callerCredentialsSchema, normalizeCallerCredentials } from '../../../runtime/vault/index.js';
import { T0, flowWorld, type FlowWorld } from './flow-world.js';

const CANARY = 'caller-canary-7f3a9c1e5b';

function withCallerFlows(manifest: any): void {
  const acme = manifest.organizations[0];
  const get = { id: 'get', tool: 'crm.get_contact', args: { id: '{{input.id}}' } };
  const inputs = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  acme.flows.push(
    { ref: 'caller-get', domain: 'sales', name: 'Read as caller', inputs, steps: [get], output: '{{steps.get.output.name}}', bindings: { crm: 'caller_required' }, publish: true },
    {
      ref: 'caller-tag',
      domain: 'sales',
      name: 'Tag as caller',
      inputs,
      steps: [get, { id: 'tag', tool: 'crm.update_contact', args: { id: '{{input.id}}', note: 'seen by {{steps.get.output.name}}' }, approval: true }],
      bindings: { crm: 'caller_preferred' },
      publish: true,
    },
  );
}

const credentials = (token: string) => normalizeCallerCredentials(callerCredentialsSchema.parse({ integrations: { crm: { token } } }));

/** Everything a run stored, as text: the canary must be in none of it. */
async function storedText(w: FlowWorld): Promise<string> {
  const dump = async (sql: string) => JSON.stringify(await w.sql.all(sql));
  return [
    await dump('SELECT * FROM session_events'),
    await dump('SELECT * FROM tool_calls'),
    await dump('SELECT * FROM messages'),
    await dump('SELECT * FROM approvals'),
    await dump('SELECT * FROM executions'),
    w.logs.join(''),
  ].join('\n');
}

t.test('from /triggers/fire a caller-bound call runs with the caller token; the grant is gone when the run settles', async (t) => {
  const w = await flowWorld(t, { manifest: withCallerFlows });
  const { sessionId, executionId } = await w.start({ id: 'c-1' }, { flow: 'caller-get', callerCredentials: credentials(CANARY) });
  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'completed');
  t.equal(w.crm.requests()[0]!.headers.authorization, `Bearer ${CANARY}`, 'caller material, not the organization token');
  t.match(trail.calls[0], { identity: 'caller', status: 'succeeded' });
  t.equal(await w.store.repos.executions.grantOf(executionId), undefined, 'custody ended with the run');
  t.notOk((await storedText(w)).includes(CANARY), 'the credential is in no row, event or log');
  t.equal(JSON.parse(trail.messages.at(-1)!.payload!).output, 'Pat Pro', 'embedded template output');
});

t.test('a schedule-origin run carries no caller credential: a caller-required call fails rather than running as the organization', async (t) => {
  const w = await flowWorld(t, { manifest: withCallerFlows });
  const flow = (await w.store.repos.automations.automation(w.refs['caller-get']!))!;
  const sessionId = newId();
  const executionId = newId();
  // Written directly: the session starter already refuses this start; the engine must refuse it on its own too.
  await w.store.writer.submit(async (tx) => {
    await tx.repos.sessions.insertSession({
      id: sessionId, orgId: w.orgId, domainId: flow.domainId, automationId: flow.id, revision: flow.publishedRevision, visibility: 'domain',
      createdBy: null, origin: 'schedule', triggerRunId: null, status: 'active', title: null, createdAt: T0, updatedAt: T0,
    });
    await tx.repos.executions.insertExecution({
      id: executionId, sessionId, status: 'queued', input: { id: 'c-1' }, createdBy: null, createdAt: T0,
      revision: flow.publishedRevision, entry: 'open', grantIntegrationIds: [], grantExpiresAt: null,
    });
  });
  w.dispatcher.dispatch(sessionId);
  await w.dispatcher.idle(sessionId);

  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'failed');
  t.equal(trail.execution.errorCode, 'CALLER_CREDENTIALS_REQUIRED');
  t.match(trail.calls[0], { status: 'failed', errorCode: 'CALLER_CREDENTIALS_REQUIRED', identity: null });
  t.ok(trail.events.some((e) => e.type === 'caller_credential.failed' && e.payload.code === 'CALLER_CREDENTIALS_REQUIRED' && e.payload.integrationId === 'crm'));
  t.same(w.crm.requests(), [], 'no upstream call, not even as the organization');
});

t.test('the session starter refuses a caller-required flow fired by a schedule (no credentials)', async (t) => {
  const w = await flowWorld(t, { manifest: withCallerFlows });
  const refused = await w.start({ id: 'c-1' }, { flow: 'caller-get', origin: 'schedule', actorUserId: null }).then(
    () => null,
    (e: unknown) => e,
  );
  t.match(refused, { code: 'CALLER_CREDENTIALS_REQUIRED' });
  t.same(w.crm.requests(), []);
});

t.test('approving after the caller credential expired fails the gated call (CALLER_CREDENTIAL_EXPIRED), with no fallback', async (t) => {
  const w = await flowWorld(t, { manifest: withCallerFlows });
  const { sessionId } = await w.start({ id: 'c-2' }, { flow: 'caller-tag', callerCredentials: credentials(CANARY), callerCredentialExpiresAt: T0 + 60_000 });
  let trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'suspended');
  t.match(trail.approvals[0], { kind: 'run', routing: 'user' }, 'the gated call would run with the caller credential');
  t.same(JSON.parse(trail.approvals[0]!.args!), { id: 'c-2', note: 'seen by Erin Enterprise' }, 'embedded template in an argument');

  w.clock.advance(120_000);
  await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved' });
  await w.dispatcher.idle(sessionId);
  trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'failed');
  t.equal(trail.execution.errorCode, 'CALLER_CREDENTIAL_EXPIRED');
  t.match(trail.calls[1], { callRef: 'tag', status: 'failed', errorCode: 'CALLER_CREDENTIAL_EXPIRED' });
  t.same(w.crm.requests('PATCH'), [], 'no call, and none as the organization');
  t.ok(trail.events.some((e) => e.type === 'caller_credential.failed' && e.payload.code === 'CALLER_CREDENTIAL_EXPIRED'));
  t.notOk((await storedText(w)).includes(CANARY));
});
