// Storage contract, both drivers: the session list's keyset pages (sessions, messages, tool calls) and lifecycle writes.
import t from 'tap';
import type { SessionListQuery } from '../../../storage/repos/session-list.repo.js';
import { contract, useStorageDrivers } from '../../helpers/storage-drivers.js';
import { allPages, FAR_FUTURE, user } from './seed.js';
import { newExecution, newMessage, newSession, newToolCall, seedSession } from './session-seed.js';

const drivers = await useStorageDrivers(t);

const query = (over: Partial<SessionListQuery> = {}): SessionListQuery => ({ status: null, createdFrom: 0, createdTo: Number.MAX_SAFE_INTEGER, before: null, limit: 2, ...over });
const ids = (pages: Array<Array<{ id: string }>>) => pages.map((page) => page.map((s) => s.id));

contract(t, drivers, 'session pages: newest first, ids in byte order on ties, filters, visibility and membership rules', async (t, db) => {
  const { sessionList, sessions, tenancy } = db.repos;
  await seedSession(db); // s-1 (domain, by u-1, created 1000) and ses-1 (domain, no creator, created 1)
  await tenancy.insertUser(user('u-2'));
  await tenancy.setDomainRole('dom-1', 'u-1', 'viewer', 1);
  // Ties on created_at: "S-Z" < "s-A" < "s-a" in byte order (a linguistic collation would sort them otherwise).
  for (const id of ['s-a', 'S-Z', 's-A']) await sessions.insertSession(newSession(id, { createdAt: 5_000 }));
  await sessions.insertSession(newSession('s-far', { createdAt: FAR_FUTURE }));
  await sessions.insertSession(newSession('p-1', { visibility: 'personal', createdAt: 6_000 }));
  await sessions.insertSession(newSession('p-2', { visibility: 'personal', createdBy: 'u-2', createdAt: 6_000 }));
  await sessionList.setArchived('s-A', true, 7_000);

  const domainPages = await allPages((before, limit) => sessionList.ofDomain('dom-1', query({ before, limit })), (s) => s.id, 2);
  t.strictSame(ids(domainPages), [['s-far', 's-a'], ['s-A', 'S-Z'], ['s-1', 'ses-1']]);
  t.strictSame(ids([await sessionList.ofDomain('dom-1', query({ status: 'archived', limit: 10 }))]), [['s-A']]);
  t.strictSame(ids([await sessionList.ofDomain('dom-1', query({ createdFrom: 1_000, createdTo: 5_000, limit: 10 }))]), [['s-1']], 'from inclusive, to exclusive');
  t.strictSame(ids([await sessionList.personalOf('u-1', 'org-1', query({ limit: 10 }))]), [['p-1']]);
  t.strictSame(ids([await sessionList.personalOf('u-1', 'org-other', query({ limit: 10 }))]), [[]]);
  const opened = await allPages((before, limit) => sessionList.domainOpenedBy('u-1', 'org-1', query({ before, limit })), (s) => s.id, 3);
  t.strictSame(ids(opened), [['s-far', 's-a', 's-A'], ['S-Z', 's-1']]);
  t.strictSame(await sessionList.domainOpenedBy('u-2', 'org-1', query()), [], 'not a member of the domain');
  t.strictSame(ids([await sessionList.ofAutomation('auto-1', 'org-1', 'u-1', query({ limit: 10 }))]), [['s-far', 'p-1', 's-a', 's-A', 'S-Z', 's-1', 'ses-1']]);
  t.strictSame(ids([await sessionList.ofAutomation('auto-1', 'org-1', 'u-1', query({ limit: 10 }), true)]), [['s-far', 'p-1', 's-a', 's-A', 'S-Z', 's-1']], 'mine');
  t.strictSame(ids([await sessionList.ofAutomation('auto-1', 'org-1', 'u-2', query({ limit: 10 }))]), [['p-2']], 'no domain membership: own personal chats only');
  t.match(await sessionList.session('s-A'), { status: 'archived', archivedAt: 7_000, updatedAt: 7_000 });
  t.equal(await sessionList.session('nope'), undefined);
});

contract(t, drivers, 'message and tool-call pages: keyset by (turn, position) and (created, id), people-facing rows only', async (t, db) => {
  const { sessionList, sessions, executions } = db.repos;
  await seedSession(db);
  await executions.insertExecution(newExecution('e-1', 's-1'));
  await executions.insertExecution(newExecution('e-2', 's-1'));
  await sessions.insertMessage(newMessage('m-1', 's-1', { executionId: 'e-1' }));
  await sessions.insertMessage(newMessage('m-2', 's-1', { executionId: 'e-2' })); // queued for turn 2 before turn 1's answer
  await sessions.insertMessage(newMessage('m-3', 's-1', { executionId: 'e-1', role: 'tool', authorUserId: null, payload: '{}' }));
  await sessions.insertMessage(newMessage('m-4', 's-1', { executionId: 'e-1', role: 'assistant', authorUserId: null, content: 'answer' }));
  await sessions.insertMessage(newMessage('m-5', 's-1', { executionId: 'e-2', role: 'assistant', authorUserId: null, content: '' }));
  await sessions.insertMessage(newMessage('m-6', 's-1', { authorUserId: null, content: 'before any turn' }));
  const pages: string[][] = [];
  let before: { turn: number; position: number } | null = null;
  for (;;) {
    const page = await sessionList.messagesPage('s-1', before, 2);
    if (page.length === 0) break;
    pages.push(page.map((m) => `${m.id}@${m.executionPosition}`));
    const last = page[page.length - 1]!;
    before = { turn: last.executionPosition, position: last.position };
  }
  t.strictSame(pages, [['m-2@2', 'm-4@1'], ['m-1@1', 'm-6@0']]);
  t.strictSame(await sessionList.messagesPage('s-1', null, 1), [{
    id: 'm-2', sessionId: 's-1', executionId: 'e-2', role: 'user', authorUserId: 'u-1', content: 'text of m-2', createdAt: 2_000, position: 2,
    authorName: 'User u-1', executionPosition: 2,
  }]);

  for (const [id, createdAt] of [['tc-a', 10], ['tc-B', 10], ['tc-0', FAR_FUTURE], ['tc-1', 3]] as const) {
    await executions.insertToolCall(newToolCall(id, 'e-1', 's-1', { createdAt, readonly: id === 'tc-B' }));
  }
  const callPages = await allPages((after, limit) => sessionList.toolCallsPage('s-1', after, limit), (c) => c.id, 2);
  t.strictSame(ids(callPages), [['tc-0', 'tc-a'], ['tc-B', 'tc-1']], 'newest first, "tc-a" > "tc-B" in byte order');
  t.match(callPages[1]![0], { readonly: true, args: { q: 'x' }, edited: false });
});

contract(t, drivers, 'lifecycle: title, outcome (cleared with its setter), unsettled count, remove cascades and takes snapshots', async (t, db) => {
  const { sessionList, sessions, executions, snapshots } = db.repos;
  await seedSession(db);
  await sessionList.setTitle('s-1', 'Renamed', 10);
  await sessionList.setOutcome('s-1', 'escalated', 'u-1', FAR_FUTURE);
  t.match(await sessionList.session('s-1'), { title: 'Renamed', outcome: 'escalated', outcomeSetBy: 'u-1', outcomeSetAt: FAR_FUTURE, updatedAt: FAR_FUTURE });
  await sessionList.setOutcome('s-1', null, 'u-1', 12);
  await sessionList.setTitle('s-1', null, 13);
  t.match(await sessionList.session('s-1'), { title: null, outcome: null, outcomeSetBy: null, outcomeSetAt: null, updatedAt: 13 });
  await sessionList.setArchived('s-1', true, 14);
  await sessionList.setArchived('s-1', false, 15);
  t.match(await sessionList.session('s-1'), { status: 'active', archivedAt: null, updatedAt: 15 });

  await executions.insertExecution(newExecution('e-1', 's-1'));
  await executions.insertExecution(newExecution('e-2', 's-1'));
  await executions.setStatus('e-2', 'suspended', 16);
  t.equal(await sessionList.unsettledCount('s-1'), 2);
  await executions.settle('e-1', 'completed', 17, null, null);
  t.equal(await sessionList.unsettledCount('s-1'), 1);
  await sessions.insertMessage(newMessage('m-1', 's-1', { executionId: 'e-1' }));
  await executions.insertToolCall(newToolCall('tc-1', 'e-1', 's-1'));
  const snapshot = { actorId: 'e-1', machine: 'session-turn', machineVersion: 1, status: 'active' as const, snapshot: '{}', updatedAt: 1 };
  await snapshots.insert(snapshot);
  await snapshots.insert({ ...snapshot, actorId: 'other-actor' });
  await sessionList.remove('s-1');
  t.equal(await sessionList.session('s-1'), undefined);
  t.equal(await executions.execution('e-1'), undefined, 'executions cascade');
  t.equal(await executions.toolCall('tc-1'), undefined, 'tool calls cascade');
  t.strictSame(await sessions.conversation('s-1'), []);
  t.equal(await snapshots.get('e-1'), undefined, 'the turn\'s snapshot goes too');
  t.ok(await snapshots.get('other-actor'), 'other snapshots stay');
  t.equal(await sessionList.unsettledCount('s-1'), 0);
});
