// The example `enrich` flow end to end (SPEC "Automation: Flow", issue 5 item 5): steps, conditions, run approvals, output.
import t from 'tap';
import { AppError } from '../../../runtime/errors.js';
import { flowWorld, type RunTrail } from './flow-world.js';

const types = (trail: RunTrail) => trail.events.map((e) => e.type);

t.test('a non-enterprise contact: get runs, the condition is false, no approval, output is the contact', async (t) => {
  const w = await flowWorld(t);
  const { sessionId } = await w.start({ id: 'c-1' });
  const trail = await w.trail(sessionId);

  t.equal(trail.execution.status, 'completed');
  t.same(
    w.crm.requests().map((r) => `${r.method} ${r.pathname}`),
    ['GET /contacts/c-1'],
    'one upstream call, the templated id in the path',
  );
  t.equal(w.crm.requests()[0]!.headers.authorization, 'Bearer org-token-123', 'service binding: the organization connection');
  t.equal(trail.calls.length, 1);
  t.match(trail.calls[0], { tool: 'crm.get_contact', callRef: 'get', step: 1, status: 'succeeded', identity: 'organization', readonly: true });
  t.same(trail.calls[0]!.args, { id: 'c-1' });
  t.same(trail.approvals, []);
  const last = trail.messages.at(-1)!;
  t.equal(last.role, 'assistant', 'the output is the final assistant message');
  t.same(JSON.parse(last.payload!), { output: { id: 'c-1', name: 'Pat Pro', tier: 'pro' } });
  t.same(JSON.parse(last.content), { id: 'c-1', name: 'Pat Pro', tier: 'pro' });
  t.equal(trail.messages[0]!.role, 'user', 'the input opens the session');
  t.same(JSON.parse(trail.messages[0]!.payload!), { input: { id: 'c-1' } });
  t.same(types(trail), ['turn.started', 'tool_call.started', 'tool_call.finished', 'turn.completed']);
  t.match(trail.events.at(-1)!.payload, { outcome: 'completed', errorCode: null });
});

t.test('an enterprise contact suspends at `tag` as a run approval; approving runs the templated update', async (t) => {
  const w = await flowWorld(t);
  const { sessionId, executionId } = await w.start({ id: 'c-2' });
  let trail = await w.trail(sessionId);

  t.equal(trail.execution.status, 'suspended');
  t.equal(trail.approvals.length, 1);
  const approval = trail.approvals[0]!;
  t.match(approval, { kind: 'run', status: 'pending', tool: 'crm.update_contact', execution_id: executionId, routing: 'policy', initiated_by: w.refs.ada });
  t.same(JSON.parse(approval.args!), { id: 'c-2', note: 'vip' }, 'the approver sees the rendered arguments');
  t.match(trail.calls[1], { callRef: 'tag', status: 'awaiting_approval', approvalId: approval.id });
  t.match(trail.events.at(-1), { type: 'turn.suspended', payload: { approvalId: approval.id, toolName: 'crm.update_contact', toolCallId: trail.calls[1]!.id } });
  t.same(w.crm.requests('PATCH'), [], 'nothing written before the decision');

  const answer = await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved', approvalId: approval.id, comment: 'ok' });
  t.same(answer, { ok: true, approvalId: approval.id, decision: 'approved' });
  await w.dispatcher.idle(sessionId);

  trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'completed');
  const patch = w.crm.requests('PATCH');
  t.equal(patch.length, 1);
  t.equal(patch[0]!.pathname, '/contacts/c-2');
  t.same(JSON.parse(patch[0]!.body), { note: 'vip' }, 'the id went to the path, the rest to the body');
  t.equal(patch[0]!.headers.authorization, 'Bearer org-token-123');
  t.equal(w.crm.requests('GET').length, 1, 'get is not repeated by the resumed run');
  t.match(trail.calls[1], { callRef: 'tag', status: 'succeeded', identity: 'organization' });
  t.match(trail.approvals[0], { status: 'approved', decided_by: w.refs.ada, comment: 'ok' });
  t.same(JSON.parse(trail.messages.at(-1)!.payload!), { output: { id: 'c-2', name: 'Erin Enterprise', tier: 'enterprise' } }, 'output is steps.get.output');
  t.same(types(trail), [
    'turn.started',
    'tool_call.started',
    'tool_call.finished',
    'turn.suspended',
    'turn.started',
    'tool_call.started',
    'tool_call.finished',
    'turn.completed',
  ]);
  t.match(trail.events[4]!.payload, { resumed: true });
});

t.test('rejecting the run approval ends the run as rejected and makes no update call', async (t) => {
  const w = await flowWorld(t);
  const { sessionId } = await w.start({ id: 'c-2' });
  const answer = await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'rejected', comment: 'not now' });
  t.equal(answer.decision, 'rejected');
  await w.dispatcher.idle(sessionId);

  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'rejected');
  t.equal(trail.execution.errorCode, 'REJECTED');
  t.same(w.crm.requests('PATCH'), []);
  t.match(trail.calls[1], { callRef: 'tag', status: 'rejected', errorCode: 'REJECTED' });
  t.match(trail.approvals[0], { status: 'rejected', comment: 'not now', decided_by: w.refs.ada });
  t.notOk(trail.messages.some((m) => m.role === 'assistant'), 'a rejected run has no output');
  t.same(types(trail).slice(-2), ['tool_call.finished', 'turn.completed']);
  t.match(trail.events.at(-1)!.payload, { outcome: 'rejected', errorCode: 'REJECTED' });
});

t.test('input that fails the declared inputs is refused before anything is written or called', async (t) => {
  const w = await flowWorld(t);
  const sessionsBefore = await w.sql.count('SELECT COUNT(*) AS n FROM sessions');
  for (const input of [{}, { id: 5 }, { id: null }]) {
    const error = await w.start(input).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(error instanceof AppError, JSON.stringify(input));
    t.match(error, { code: 'VALIDATION', status: 400 });
    t.notOk(JSON.stringify((error as AppError).details).includes('5'), 'issues name paths and rules, not the values');
  }
  t.equal(await w.sql.count('SELECT COUNT(*) AS n FROM sessions'), sessionsBefore, 'no session written');
  t.same(w.crm.requests(), [], 'no upstream call');
});

t.test('a stored input that bypassed admission fails the run before any step', async (t) => {
  const w = await flowWorld(t);
  const planned = await w.starter.plan({ orgId: w.orgId, automationId: w.refs.enrich!, actorUserId: w.refs.ada!, origin: 'trigger', visibility: 'domain', input: { id: 'c-1' } });
  // Written as a path that skipped admission would: the stored input no longer matches the declared inputs.
  await w.store.writer.submit(async (tx) => planned.write(tx));
  await w.sql.run(`UPDATE executions SET input = '{"id": 42}' WHERE id = ?`, planned.executionId);
  planned.dispatch();
  await w.dispatcher.idle(planned.sessionId);

  const trail = await w.trail(planned.sessionId);
  t.equal(trail.execution.status, 'failed');
  t.equal(trail.execution.errorCode, 'INVALID_INPUT');
  t.same(trail.calls, []);
  t.same(w.crm.requests(), [], 'no upstream call');
  t.same(trail.events.map((e) => e.type), ['turn.started', 'turn.completed']);
});

t.test('deterministic: the same input and tool outputs give the same trail', async (t) => {
  const w = await flowWorld(t);
  const normalize = (trail: RunTrail) => ({
    calls: trail.calls.map((c) => ({ step: c.step, ref: c.callRef, tool: c.tool, args: c.args, status: c.status, result: c.result, identity: c.identity })),
    events: trail.events.map((e) => ({ seq: e.seq, type: e.type, status: e.payload.status, outcome: e.payload.outcome, toolName: e.payload.toolName })),
    output: trail.messages.map((m) => [m.role, m.content]),
  });
  const runs = [];
  for (let i = 0; i < 2; i++) {
    const { sessionId } = await w.start({ id: 'c-2' });
    await w.approvals.decide(w.caller('ada'), { runId: sessionId, decision: 'approved' });
    await w.dispatcher.idle(sessionId);
    // The CRM keeps what the update wrote; reset it so the second run sees the same upstream answers.
    w.crm.contacts.set('c-2', { id: 'c-2', name: 'Erin Enterprise', tier: 'enterprise' });
    runs.push(normalize(await w.trail(sessionId)));
  }
  t.same(runs[1], runs[0]);
  t.equal(runs[0]!.calls.length, 2);
});

t.test('a failing step fails the run with its code; later steps do not run', async (t) => {
  const w = await flowWorld(t);
  const { sessionId } = await w.start({ id: 'c-404' });
  const trail = await w.trail(sessionId);
  t.equal(trail.execution.status, 'failed');
  t.equal(trail.execution.errorCode, 'UPSTREAM_ERROR');
  t.match(trail.execution.errorMessage, /^Step "get" \(crm\.get_contact\) failed: /);
  t.match(trail.calls[0], { status: 'failed', errorCode: 'UPSTREAM_ERROR' });
  t.equal(trail.calls.length, 1);
  t.notOk(trail.messages.some((m) => m.role === 'assistant'));
});
