// Storage contract, both drivers: executions (positions, lifecycle, usage, grant facts), tool calls, sealed caller grants.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE } from './seed.js';
import { newExecution, newSession, newToolCall, seedSession } from './session-seed.js';

const drivers = await useStorageDrivers(t);

contract(t, drivers, 'executions: positions per session, input key order, lifecycle guarded by settlement, usage and grant facts', async (t, db) => {
  const { executions, sessions } = db.repos;
  await seedSession(db);
  await sessions.insertSession(newSession('s-2'));
  const input = { zeta: 'z', nested: { b: [1, 'two'], a: null }, a: 1 };
  const created = newExecution('e-1', 's-1', { input, grantIntegrationIds: ['int-b', 'int-a'], grantExpiresAt: FAR_FUTURE, createdAt: FAR_FUTURE, entry: 'flow' });
  t.equal(await executions.insertExecution(created), 1);
  t.equal(await executions.insertExecution(newExecution('e-2', 's-1')), 2);
  t.equal(await executions.insertExecution(newExecution('e-3', 's-2')), 1, 'positions count per session');
  const { createdAt, ...rest } = created;
  const stored = await executions.execution('e-1');
  t.strictSame(stored, {
    ...rest, position: 1, createdAt, updatedAt: createdAt, errorCode: null, errorMessage: null, settledAt: null, stepsUsed: 0, tokensUsed: 0, runMs: 0, startedAt: null,
  });
  t.strictSame(Object.keys(stored!.input as object), ['zeta', 'nested', 'a'], 'key order as written');
  t.equal(await executions.execution('nope'), undefined);
  t.equal((await executions.latestExecution('s-1'))!.id, 'e-2');
  t.equal(await executions.latestExecution('nope'), undefined);
  t.ok(isUniqueViolation(await executions.insertExecution(newExecution('e-1', 's-1')).catch((e: unknown) => e)));
  t.equal(constraintKind(await executions.insertExecution(newExecution('e-x', 'nope')).catch((e: unknown) => e)), 'foreign_key');

  t.equal((await executions.firstUnsettled('s-1'))!.id, 'e-1');
  t.strictSame((await executions.sessionsWithRunnableWork()).sort(), ['s-1', 's-2']);
  t.equal(await executions.countQueued(), 3);
  t.equal(await executions.statusForUpdate('e-1'), 'queued');
  t.equal(await executions.statusForUpdate('nope'), undefined);
  t.equal(await executions.markStarted('e-1', 50), true, 'a start says it marked the row');
  await executions.markStarted('e-1', 60);
  t.match(await executions.execution('e-1'), { status: 'running', startedAt: 50, updatedAt: 60 }, 'the first start stays');
  await executions.addUsage('e-1', { steps: 2, tokens: 5_000_000_000, ms: 30 }, 61);
  await executions.addUsage('e-1', { steps: 1, tokens: 1, ms: 5 }, 62);
  t.match(await executions.execution('e-1'), { stepsUsed: 3, tokensUsed: 5_000_000_001, runMs: 35, updatedAt: 62 });
  await executions.setGrantFacts('e-2', ['int-1'], 99, 63);
  t.match(await executions.execution('e-2'), { grantIntegrationIds: ['int-1'], grantExpiresAt: 99, updatedAt: 63 });
  await executions.settle('e-1', 'failed', 70, 'TOOL_FAILED', 'it broke');
  t.match(await executions.execution('e-1'), { status: 'failed', settledAt: 70, updatedAt: 70, errorCode: 'TOOL_FAILED', errorMessage: 'it broke', grantIntegrationIds: [] });
  await executions.setStatus('e-1', 'running', 80);
  t.equal(await executions.markStarted('e-1', 81), false, 'a start of a settled execution marks nothing, and says so');
  await executions.settle('e-1', 'completed', 82, null, null);
  t.equal(await executions.statusForUpdate('e-1'), 'failed');
  t.match(await executions.execution('e-1'), { status: 'failed', updatedAt: 70, settledAt: 70 }, 'settled: nothing changes it');
  await executions.setStatus('e-2', 'suspended', 90);
  t.equal((await executions.firstUnsettled('s-1'))!.id, 'e-2', 'suspended is unsettled');
  t.strictSame(await executions.sessionsWithRunnableWork(), ['s-2'], 'a suspended turn waits for its approval, not for a boot');
  t.equal(await executions.countQueued(), 1);
  t.equal(await executions.firstUnsettled('nope'), undefined);
});

contract(t, drivers, 'tool calls: steps per execution, booleans, args and result text, by ref, open ones, session order', async (t, db) => {
  const { executions } = db.repos;
  await seedSession(db);
  await executions.insertExecution(newExecution('e-1', 's-1'));
  await executions.insertExecution(newExecution('e-2', 's-1'));
  const args = { query: 'x', opts: { z: 1, a: [true, null] } };
  const first = await executions.insertToolCall(newToolCall('tc-B', 'e-1', 's-1', { args, readonly: true, integrationId: 'int-1', createdAt: FAR_FUTURE }));
  t.strictSame(first, {
    id: 'tc-B', executionId: 'e-1', sessionId: 's-1', step: 1, tool: 'lookup', args, edited: false, identity: null, status: 'pending', result: null,
    errorCode: null, errorMessage: null, createdAt: FAR_FUTURE, finishedAt: null, callRef: 'ref-tc-B', integrationId: 'int-1', readonly: true, approvalId: null,
  });
  t.strictSame(Object.keys(first.args as object), ['query', 'opts']);
  t.equal((await executions.insertToolCall(newToolCall('tc-a', 'e-1', 's-1', { status: 'awaiting_approval', approvalId: 'ap-1' }))).step, 2);
  t.equal((await executions.insertToolCall(newToolCall('tc-0', 'e-2', 's-1', { callRef: null }))).step, 1, 'steps count per execution');
  t.ok(isUniqueViolation(await executions.insertToolCall(newToolCall('tc-dup', 'e-1', 's-1', { callRef: 'ref-tc-B' })).catch((e: unknown) => e)), 'one call per ref');
  t.strictSame(await executions.toolCallByRef('e-1', 'ref-tc-B'), first);
  t.equal(await executions.toolCallByRef('e-2', 'ref-tc-B'), undefined);
  t.equal(await executions.toolCall('nope'), undefined);

  const edited = { query: 'y', b: 2, a: 1 };
  await executions.setToolCallArgs('tc-a', edited, true);
  t.match(await executions.toolCall('tc-a'), { args: edited, edited: true });
  t.strictSame(Object.keys((await executions.toolCall('tc-a'))!.args as object), ['query', 'b', 'a']);
  await executions.startToolCall('tc-B', { query: 'z' }, false, 'caller');
  t.match(await executions.toolCall('tc-B'), { status: 'running', args: { query: 'z' }, edited: false, identity: 'caller' });
  // The redacted output as written: spacing and escapes kept (a flow's replay reads this text).
  const result = '{"rows": [ {"id":1} ],"note":"\\u0000 é"}';
  await executions.finishToolCall('tc-B', { status: 'succeeded', result, errorCode: null, errorMessage: null }, FAR_FUTURE + 1);
  const finished = await executions.toolCall('tc-B');
  t.match(finished, { status: 'succeeded', finishedAt: FAR_FUTURE + 1, identity: 'caller' }, 'no identity given: the start\'s stays');
  t.equal(finished!.result, result);
  await executions.finishToolCall('tc-a', { status: 'rejected', result: null, errorCode: 'REJECTED', errorMessage: 'no', identity: 'organization' }, 5);
  t.match(await executions.toolCall('tc-a'), { status: 'rejected', result: null, errorCode: 'REJECTED', errorMessage: 'no', identity: 'organization' });
  t.strictSame((await executions.openToolCalls('e-1')).map((c) => c.id), []);
  t.strictSame((await executions.openToolCalls('e-2')).map((c) => c.id), ['tc-0']);
  t.strictSame((await executions.toolCallsOfSession('s-1')).map((c) => c.id), ['tc-a', 'tc-0', 'tc-B'], 'created, then execution id, then step');
});

contract(t, drivers, 'caller grants: sealed bytes and ids round trip, the newest per execution, deleted with a count', async (t, db) => {
  const { executions } = db.repos;
  await seedSession(db);
  await executions.insertExecution(newExecution('e-1', 's-1'));
  const grant = {
    id: 'g-B', orgId: 'org-1', executionId: 'e-1', keyId: 'k1', wrappedKey: Buffer.from([0, 255, 1]), iv: Buffer.alloc(12, 7), tag: Buffer.alloc(16, 9),
    ciphertext: Buffer.from([0, 0, 1, 2]), integrationIds: ['int-b', 'int-a'], expiresAt: FAR_FUTURE, createdAt: 5,
  };
  await executions.insertGrant(grant);
  t.strictSame(await executions.grantOf('e-1'), grant);
  await executions.insertGrant({ ...grant, id: 'g-a', integrationIds: [], expiresAt: null });
  t.equal((await executions.grantOf('e-1'))!.id, 'g-a', 'same time: the greater id in byte order');
  t.ok(isUniqueViolation(await executions.insertGrant(grant).catch((e: unknown) => e)));
  t.equal(await executions.deleteGrants('e-1'), 2);
  t.equal(await executions.deleteGrants('e-1'), 0);
  t.equal(await executions.grantOf('e-1'), undefined);
});
