// Session lifecycle (issue 13 item 3): rename, outcome, archive / unarchive, delete — canManage, 404 uniformity, strict bodies, session.changed.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startConversation, type Conversation } from './conversation-fixture.js';
import { send, watchChanges } from './lifecycle-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const UNKNOWN = '0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71';

async function openSettled(c: Conversation, user: string, agent = 'lookup'): Promise<string> {
  const opened = await c.open(agent, user, { message: 'id: c-1' });
  await c.settle(opened.json.sessionId);
  return opened.json.sessionId as string;
}

t.test('a manager renames, sets the outcome, archives, unarchives and deletes; an EventSource sees each session.changed', async (t) => {
  const c = await startConversation(t);
  const id = await openSettled(c, 'bob');
  const watch = watchChanges(c, id, 'vic');
  t.teardown(() => watch.close());
  // Subscribed before the first change (on PostgreSQL the subscription is a round trip behind the request).
  await watch.ready;
  const path = `/agents/sessions/${id}`;

  const renamed = await send(c, 'PATCH', path, 'bob', { title: '  Contact c-1  ' });
  t.equal(renamed.status, 200);
  t.match(renamed.json, { sessionId: id, title: 'Contact c-1', outcome: null, canManage: true });
  const outcome = await send(c, 'PATCH', path, 'ada', { outcome: 'escalated' });
  t.match(outcome.json, { outcome: 'escalated', title: 'Contact c-1' });
  t.same(
    (await sqlReader(c.server.service).get('SELECT outcome, outcome_set_by FROM sessions WHERE id = ?', id)),
    { outcome: 'escalated', outcome_set_by: c.refs.ada },
    'the outcome is recorded with who set it',
  );
  const same = await send(c, 'PATCH', path, 'ada', { outcome: 'escalated', title: 'Contact c-1' });
  t.equal(same.status, 200, 'a change that changes nothing is accepted and announces nothing');

  const archived = await send(c, 'POST', `${path}/archive`, 'bob');
  t.match(archived.json, { status: 'archived', canParticipate: false, readOnlyReason: 'session_archived' });
  t.match(archived.json.archivedAt, /^\d{4}-/);
  t.equal((await send(c, 'POST', `${path}/archive`, 'bob', {})).status, 200, 'archiving twice is idempotent');
  const unarchived = await send(c, 'POST', `${path}/unarchive`, 'ada');
  t.match(unarchived.json, { status: 'active', archivedAt: null, canParticipate: true, readOnlyReason: null });

  await watch.until((changes) => changes.length === 4);
  t.same(watch.changes, ['renamed', 'outcome_set', 'archived', 'unarchived']);

  t.equal((await send(c, 'DELETE', path, 'bob')).status, 204);
  await watch.until((changes) => changes.length === 5);
  t.equal(watch.changes[4], 'deleted');
  await watch.closed;
  t.pass('the stream ended after deleted and the reconnect was refused');
  t.equal((await c.get(path, 'bob')).status, 404);
  t.equal((await send(c, 'DELETE', path, 'bob')).status, 404, 'deleting again is an unknown id');
  for (const table of ['messages', 'executions', 'tool_calls', 'session_events']) {
    t.equal(await c.count(`SELECT count(*) AS n FROM ${table} WHERE session_id = ?`, id), 0, `${table} rows are gone`);
  }
});

t.test('permissions: canManage is the creator or a domain Editor/Owner; others get 403, non-members the uniform 404', async (t) => {
  const c = await startConversation(t);
  const adas = await openSettled(c, 'ada');
  const path = `/agents/sessions/${adas}`;
  const unknown = await send(c, 'PATCH', `/agents/sessions/${UNKNOWN}`, 'ada', { title: 'x' });
  t.equal(unknown.status, 404);

  for (const [method, suffix, body] of [['PATCH', '', { title: 'x' }], ['POST', '/archive', undefined], ['POST', '/unarchive', undefined], ['DELETE', '', undefined]] as const) {
    const operator = await send(c, method, `${path}${suffix}`, 'bob', body);
    t.same([operator.status, operator.json.error.code], [403, 'FORBIDDEN'], `${method}${suffix}: an Operator who did not open it`);
    t.equal((await send(c, method, `${path}${suffix}`, 'vic', body)).status, 403, `${method}${suffix}: a Viewer`);
    const outsider = await send(c, method, `${path}${suffix}`, 'eve', body);
    t.same([outsider.status, outsider.text], [404, unknown.text], `${method}${suffix}: org Admin outside the domain, same bytes as unknown`);
    const badKey = await call(`${c.server.url}/api/v1${path}${suffix}`, { method, headers: bearer('sv_garbage'), json: body });
    t.same([badKey.status, badKey.text], [404, unknown.text], `${method}${suffix}: an invalid key`);
  }
  t.match((await c.get(path, 'bob')).json, { canManage: false, title: null }, 'nothing changed');

  // Rechecked on every change: the domain Owner demoted to viewer loses canManage at once.
  (await c.server.service.store.repos.tenancy.setDomainRole(c.refs.sales!, c.refs.ada!, 'viewer', 0));
  const bobs = await openSettled(c, 'bob');
  t.equal((await send(c, 'POST', `/agents/sessions/${bobs}/archive`, 'ada')).status, 403);
  t.equal((await send(c, 'POST', `/agents/sessions/${bobs}/archive`, 'bob')).status, 200, 'the creator manages their session');
});

t.test('bodies are strict: unknown fields, an empty patch, a bad title or outcome are 400 VALIDATION and change nothing', async (t) => {
  const c = await startConversation(t);
  const id = await openSettled(c, 'ada');
  const path = `/agents/sessions/${id}`;
  const refusals: Array<[string, string, unknown]> = [
    ['PATCH', path, { title: 'x', status: 'archived' }],
    ['PATCH', path, {}],
    ['PATCH', path, { title: '   ' }],
    ['PATCH', path, { title: 'x'.repeat(201) }],
    ['PATCH', path, { outcome: 'won' }],
    ['POST', `${path}/archive`, { force: true }],
    ['POST', `${path}/unarchive`, { reason: 'x' }],
  ];
  for (const [method, target, body] of refusals) {
    const answer = await send(c, method, target, 'ada', body);
    t.same([answer.status, answer.json.error.code], [400, 'VALIDATION'], `${method} ${JSON.stringify(body)}`);
  }
  t.match((await c.get(path, 'ada')).json, { title: null, outcome: null, status: 'active' });
  t.equal((await send(c, 'PATCH', path, 'ada', { title: null, outcome: null })).status, 200, 'null clears');
});

t.test('an archived session is read-only: appends 403 SESSION_NOT_DRIVABLE, rename 409 CONFLICT; unarchive restores it', async (t) => {
  const c = await startConversation(t);
  const id = await openSettled(c, 'bob');
  const path = `/agents/sessions/${id}`;
  await send(c, 'POST', `${path}/archive`, 'bob');
  const append = await c.post(`${path}/messages`, 'bob', { message: 'id: c-2' });
  t.same([append.status, append.json.error.code, append.json.error.details], [403, 'SESSION_NOT_DRIVABLE', { readOnlyReason: 'session_archived' }]);
  const rename = await send(c, 'PATCH', path, 'bob', { title: 'late' });
  t.same([rename.status, rename.json.error.code, rename.json.error.details], [409, 'CONFLICT', { reason: 'session_archived' }]);
  t.equal(await c.count('SELECT count(*) AS n FROM executions WHERE session_id = ?', id), 1, 'no turn was queued');
  await send(c, 'POST', `${path}/unarchive`, 'bob');
  t.equal((await c.post(`${path}/messages`, 'bob', { message: 'id: c-2' })).status, 200);
  await c.settle(id);
});

t.test('delete is refused while a turn waits for approval (409 turn_in_progress); the session stays whole', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('notary', 'ada', { message: 'id: c-3' });
  await c.settle(opened.json.sessionId);
  const path = `/agents/sessions/${opened.json.sessionId}`;
  t.match((await c.get(path, 'ada')).json, { latestTurn: { status: 'suspended' } });
  const refused = await send(c, 'DELETE', path, 'ada');
  t.same([refused.status, refused.json.error.code, refused.json.error.details], [409, 'CONFLICT', { reason: 'turn_in_progress' }]);
  t.equal((await c.get(path, 'ada')).status, 200);
});
