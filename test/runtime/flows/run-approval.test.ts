// Deciding a run approval (partner `POST /worker/approvals/runs/:runId` contract): conflicts, visibility, policy, bounds.
import t from 'tap';
import { AppError } from '../../../runtime/errors.js';
import { flowWorld, type FlowWorld } from './flow-world.js';

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function suspended(w: FlowWorld) {
  const run = await w.start({ id: 'c-2' });
  return { ...run, approvalId: (await w.trail(run.sessionId)).approvals[0]!.id };
}

t.test('a stale or different approvalId is 409 APPROVAL_CONFLICT and changes nothing', async (t) => {
  const w = await flowWorld(t);
  const first = await suspended(w);
  const second = await suspended(w);

  const other = await refusal(w.approvals.decide(w.caller('ada'), { runId: first.sessionId, decision: 'approved', approvalId: second.approvalId }));
  t.match(other, { code: 'APPROVAL_CONFLICT', status: 409 });
  const unknown = await refusal(w.approvals.decide(w.caller('ada'), { runId: first.sessionId, decision: 'rejected', approvalId: '01900000-0000-7000-8000-000000000000' }));
  t.match(unknown, { code: 'APPROVAL_CONFLICT', status: 409 });
  t.equal((await w.trail(first.sessionId)).execution.status, 'suspended');
  t.equal((await w.trail(first.sessionId)).approvals[0]!.status, 'pending');

  await w.approvals.decide(w.caller('ada'), { runId: first.sessionId, decision: 'approved', approvalId: first.approvalId });
  await w.dispatcher.idle(first.sessionId);
  const again = await refusal(w.approvals.decide(w.caller('ada'), { runId: first.sessionId, decision: 'approved', approvalId: first.approvalId }));
  t.match(again, { code: 'APPROVAL_CONFLICT' }, 'an approval already decided is stale');
  t.equal(w.crm.requests('PATCH').length, 1, 'decided once, called once');
});

t.test('two decisions racing on one approval: exactly one wins', async (t) => {
  const w = await flowWorld(t);
  const run = await suspended(w);
  const outcomes = await Promise.allSettled([
    w.approvals.decide(w.caller('ada'), { runId: run.sessionId, decision: 'approved' }),
    w.approvals.decide(w.caller('ada'), { runId: run.sessionId, decision: 'rejected' }),
  ]);
  t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
  const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
  t.match(lost.reason, { code: 'APPROVAL_CONFLICT' });
  await w.dispatcher.idle(run.sessionId);
  t.equal((await w.trail(run.sessionId)).execution.status, 'completed', 'the first decision (approve) applied');
});

t.test('the runId may be the run session id or its execution id', async (t) => {
  const w = await flowWorld(t);
  const run = await suspended(w);
  const answer = await w.approvals.decide(w.caller('ada'), { runId: run.executionId, decision: 'rejected' });
  t.same(answer, { ok: true, approvalId: run.approvalId, decision: 'rejected' });
  t.equal((await w.trail(run.sessionId)).execution.status, 'rejected');
});

t.test('visibility, policy and bounds: 404 outside the domain, 403 without approval rights, 400 for bad fields, 409 when nothing waits', async (t) => {
  const w = await flowWorld(t);
  const run = await suspended(w);

  t.match(await refusal(w.approvals.decide(w.caller('eve'), { runId: run.sessionId, decision: 'approved' })), { code: 'NOT_FOUND' }, 'org admin outside the domain');
  t.match(await refusal(w.approvals.decide(w.caller('ada'), { runId: '01900000-0000-7000-8000-000000000001', decision: 'approved' })), { code: 'NOT_FOUND' });
  const globex = { userId: w.refs.gina!, orgId: w.refs.globex! };
  t.match(await refusal(w.approvals.decide(globex, { runId: run.sessionId, decision: 'approved' })), { code: 'NOT_FOUND' }, 'another organization');
  t.match(await refusal(w.approvals.decide(w.caller('bob'), { runId: run.sessionId, decision: 'approved' })), { code: 'FORBIDDEN', status: 403 }, 'operator, not an approver');
  t.match(await refusal(w.approvals.decide(w.caller('ada'), { runId: run.sessionId, decision: 'approved', comment: 'x'.repeat(2_001) })), { code: 'VALIDATION', status: 400 });
  t.match(await refusal(w.approvals.decide(w.caller('ada'), { runId: run.sessionId, decision: 'maybe' as 'approved' })), { code: 'VALIDATION' });
  t.equal((await w.trail(run.sessionId)).approvals[0]!.status, 'pending', 'no refusal decided anything');

  const done = await w.start({ id: 'c-1' });
  t.match(await refusal(w.approvals.decide(w.caller('ada'), { runId: done.sessionId, decision: 'approved' })), { code: 'APPROVAL_CONFLICT' }, 'a run with nothing waiting');
  const lookup = (await w.store.repos.automations.automation(w.refs.lookup!))!;
  const agentSessionId = '01900000-0000-7000-8000-000000000002';
  await w.store.writer.submit(async (tx) =>
    tx.repos.sessions.insertSession({
      id: agentSessionId, orgId: w.orgId, domainId: lookup.domainId, automationId: lookup.id, revision: lookup.publishedRevision, visibility: 'domain',
      createdBy: w.refs.ada!, origin: 'api', triggerRunId: null, status: 'active', title: null, createdAt: 0, updatedAt: 0,
    }),
  );
  t.match(await refusal(w.approvals.decide(w.caller('ada'), { runId: agentSessionId, decision: 'approved' })), { code: 'NOT_FOUND' }, 'an agent session is not a flow run');
});
