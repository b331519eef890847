// Storage contract, both drivers: sessions (pending first turn, lifecycle), the message log, files, approvals.
import t from 'tap';
import { constraintKind, isUniqueViolation } from '../../../storage/port/errors.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { FAR_FUTURE, seedWorkspace } from './seed.js';
import { newExecution, newMessage, newSession, seedSession } from './session-seed.js';

const drivers = await useStorageDrivers(t);

contract(t, drivers, 'sessions: record round trip, pending first turn (key order, NUL kept), not found, unique id, foreign keys', async (t, db) => {
  const { sessions } = db.repos;
  await seedWorkspace(db);
  const pending = { zeta: 1, message: { text: 'hi \u0000 é 🚀', b: null }, a: [2, 1] };
  const session = newSession('s-1', { revision: 7, title: 'Title', triggerRunId: 'run-1', origin: 'trigger', createdAt: FAR_FUTURE, updatedAt: FAR_FUTURE });
  await sessions.insertSession({ ...session, pending });
  await sessions.insertSession(newSession('s-0', { createdAt: 5 }));
  const { pending: _, ...record } = { ...session, pending };
  t.strictSame(await sessions.session('s-1'), { ...record, outcome: null, outcomeSetBy: null, outcomeSetAt: null, archivedAt: null });
  t.equal(await sessions.session('nope'), undefined);
  const waiting = await sessions.pendingSessions();
  t.strictSame(waiting, [{ id: 's-1', pending }], 'only sessions with a pending turn');
  t.strictSame(Object.keys(waiting[0]!.pending as object), ['zeta', 'message', 'a'], 'key order as written');
  t.equal(await sessions.clearPending('s-1'), true);
  t.equal(await sessions.clearPending('s-1'), false, 'already written');
  t.equal(await sessions.clearPending('nope'), false);
  t.strictSame(await sessions.pendingSessions(), []);
  await sessions.touchSession('s-1', FAR_FUTURE + 1);
  t.equal((await sessions.session('s-1'))!.updatedAt, FAR_FUTURE + 1);
  t.ok(isUniqueViolation(await sessions.insertSession(newSession('s-1')).catch((e: unknown) => e)), 'one session per id');
  t.equal(constraintKind(await sessions.insertSession(newSession('s-x', { orgId: 'org-none' })).catch((e: unknown) => e)), 'foreign_key');
});

contract(t, drivers, 'messages: dense positions, payload text byte for byte, the visible view in turn order with authors', async (t, db) => {
  const { sessions, executions, tenancy } = db.repos;
  await seedSession(db);
  await tenancy.insertUser({ id: 'u-2', email: 'u2@example.com', name: 'Second', passwordHash: null, disabled: false, createdAt: 1 });
  const first = await executions.insertExecution(newExecution('e-1', 's-1'));
  const second = await executions.insertExecution(newExecution('e-2', 's-1'));
  t.strictSame([first, second], [1, 2]);
  // Spacing, escapes and non-ASCII exactly as written: the conversation hands payload text on unparsed.
  const payload = '{"calls": [ {"id":"c1", "args":{"z":1,"a":"\\u0000é"}} ],  "n": 1.50}';
  await sessions.insertMessage(newMessage('m-1', 's-1', { executionId: 'e-1', content: 'question' }));
  // A message queued for the second turn, written before the first turn's answer: the view shows it after that answer.
  await sessions.insertMessage(newMessage('m-2', 's-1', { executionId: 'e-2', authorUserId: 'u-2', content: 'follow-up' }));
  await sessions.insertMessage(newMessage('m-3', 's-1', { executionId: 'e-1', role: 'assistant', authorUserId: null, content: '', payload }));
  await sessions.insertMessage(newMessage('m-4', 's-1', { executionId: 'e-1', role: 'tool', authorUserId: null, content: 'lookup', payload: '[]' }));
  await sessions.insertMessage(newMessage('m-5', 's-1', { executionId: 'e-1', role: 'assistant', authorUserId: null, content: 'answer' }));
  await sessions.insertMessage(newMessage('m-6', 's-1', { authorUserId: 'u-gone', content: 'outside any turn', createdAt: FAR_FUTURE }));

  const conversation = await sessions.conversation('s-1');
  t.strictSame(conversation.map((m) => [m.id, m.position, m.executionPosition]), [
    ['m-1', 1, 1], ['m-2', 2, 2], ['m-3', 3, 1], ['m-4', 4, 1], ['m-5', 5, 1], ['m-6', 6, null],
  ]);
  t.equal(conversation[2]!.payload, payload, 'payload text unchanged');
  t.strictSame(conversation[5], {
    id: 'm-6', sessionId: 's-1', executionId: null, role: 'user', authorUserId: 'u-gone', content: 'outside any turn', payload: null,
    createdAt: FAR_FUTURE, position: 6, executionPosition: null,
  });
  const visible = await sessions.visibleMessages('s-1');
  t.strictSame(visible.map((m) => [m.id, m.authorName]), [['m-6', null], ['m-1', 'User u-1'], ['m-5', null], ['m-2', 'Second']],
    'users and non-empty answers; outside any turn first, then turn by turn');
  t.notOk('payload' in visible[0]!, 'people never see payloads');
  t.strictSame(await sessions.conversation('nope'), []);
  t.equal(constraintKind(await sessions.insertMessage(newMessage('m-x', 'nope')).catch((e: unknown) => e)), 'foreign_key');
  t.ok(isUniqueViolation(await sessions.insertMessage(newMessage('m-1', 's-1')).catch((e: unknown) => e)));
});

contract(t, drivers, 'files: content bytes, metadata with size in (created, id byte) order, scoped to their session', async (t, db) => {
  const { sessions } = db.repos;
  await seedSession(db);
  await sessions.insertSession(newSession('s-2'));
  const content = Buffer.from([0, 1, 2, 255, 0]);
  const file = { id: 'f-B', sessionId: 's-1', executionId: null, name: 'a.bin', mediaType: 'application/octet-stream', content, createdAt: 7 };
  await sessions.insertFile(file);
  await sessions.insertFile({ ...file, id: 'f-a', name: 'b.txt', content: Buffer.from('hello'), mediaType: 'text/plain' });
  await sessions.insertFile({ ...file, id: 'f-0', createdAt: FAR_FUTURE });
  t.strictSame(await sessions.file('s-1', 'f-B'), file);
  t.equal(await sessions.file('s-2', 'f-B'), undefined, 'another session cannot read it');
  t.equal(await sessions.file('s-1', 'nope'), undefined);
  t.strictSame(await sessions.files('s-1'), [
    { id: 'f-B', sessionId: 's-1', executionId: null, name: 'a.bin', mediaType: 'application/octet-stream', createdAt: 7, sizeBytes: 5 },
    { id: 'f-a', sessionId: 's-1', executionId: null, name: 'b.txt', mediaType: 'text/plain', createdAt: 7, sizeBytes: 5 },
    { id: 'f-0', sessionId: 's-1', executionId: null, name: 'a.bin', mediaType: 'application/octet-stream', createdAt: FAR_FUTURE, sizeBytes: 5 },
  ], '"f-B" < "f-a" in byte order');
  t.strictSame(await sessions.files('s-2'), []);
});

contract(t, drivers, 'approvals: pending on insert, newest of a session, oldest first per organization, decided once, closed', async (t, db) => {
  const { approvals, executions } = db.repos;
  await seedSession(db);
  await executions.insertExecution(newExecution('e-1', 's-1'));
  const args = { to: 'x@example.com', z: [1, { b: 2, a: 1 }] };
  const base = {
    id: 'ap-B', orgId: 'org-1', sessionId: 's-1', executionId: 'e-1', toolCallId: 'tc-1', kind: 'confirmation' as const, routing: 'user' as const,
    tool: 'send', args, initiatedBy: 'u-1', createdAt: 10,
  };
  await approvals.insert(base);
  await approvals.insert({ ...base, id: 'ap-a', toolCallId: null, kind: 'turn', routing: 'policy', tool: null, args: null, initiatedBy: null });
  await approvals.insert({ ...base, id: 'ap-0', createdAt: FAR_FUTURE });
  const stored = await approvals.approval('ap-B');
  t.strictSame(stored, { ...base, status: 'pending', decidedBy: null, comment: null, edited: false, editedArgs: null, decidedAt: null });
  t.strictSame(Object.keys(stored!.args as object), ['to', 'z'], 'key order as proposed');
  t.equal((await approvals.approval('ap-a'))!.args, null);
  t.equal(await approvals.approval('nope'), undefined);
  t.equal((await approvals.pendingOfSession('s-1'))!.id, 'ap-0', 'newest first');
  t.strictSame((await approvals.pendingOfOrganization('org-1')).map((a) => a.id), ['ap-B', 'ap-a', 'ap-0'], 'oldest first, ids in byte order');
  t.ok(isUniqueViolation(await approvals.insert(base).catch((e: unknown) => e)));

  const edited = { to: 'y@example.com', a: 1 };
  t.equal(await approvals.decide('ap-B', { status: 'approved', decidedBy: 'u-1', comment: 'ok', editedArgs: edited }, FAR_FUTURE), true);
  t.equal(await approvals.decide('ap-B', { status: 'rejected', decidedBy: 'u-1', comment: null, editedArgs: null }, 99), false, 'decided once');
  const decided = await approvals.approval('ap-B');
  t.strictSame(decided, { ...stored, status: 'approved', decidedBy: 'u-1', comment: 'ok', edited: true, editedArgs: edited, decidedAt: FAR_FUTURE });
  t.strictSame(Object.keys(decided!.editedArgs as object), ['to', 'a']);
  t.equal(await approvals.decide('ap-a', { status: 'rejected', decidedBy: 'u-1', comment: null, editedArgs: null }, 12), true);
  t.match(await approvals.approval('ap-a'), { status: 'rejected', decidedBy: 'u-1', comment: null, edited: false, editedArgs: null, decidedAt: 12 });
  t.equal(await approvals.close('ap-0', 'expired', 13), true);
  t.equal(await approvals.close('ap-0', 'again', 14), false);
  t.match(await approvals.approval('ap-0'), { status: 'rejected', decidedBy: null, comment: 'expired', decidedAt: 13 });
  t.equal(await approvals.pendingOfSession('s-1'), undefined);
  t.strictSame(await approvals.pendingOfOrganization('org-1'), []);
});
