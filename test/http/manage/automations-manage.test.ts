// Automation management routes: list (paged, kind filter), revision history, rename/describe, rollback, archive.
import t from 'tap';
import { allPages, startManageServer, UNKNOWN } from './manage-fixture.js';

const BASE = '/api/v1/authoring/automations';

t.test('list: agents and flows of the caller\'s domains, kind and archived filters, strict query, cursor pages', async (t) => {
  const f = await startManageServer(t);
  const whole = await f.req('GET', `${BASE}?limit=200`, { user: 'ada' });
  t.equal(whole.status, 200);
  const ids = whole.json.automations.map((a: any) => a.id);
  for (const ref of ['lookup', 'upgrader', 'drafty', 'enrich', 'helper']) t.ok(ids.includes(f.refs[ref]), ref);
  t.notOk(ids.includes(f.refs['globex-agent']), 'never another organization\'s');
  t.match(whole.json.automations.find((a: any) => a.id === f.refs.drafty), { kind: 'agent', publishedRevision: null, archived: false });

  const flows = await f.req('GET', `${BASE}?kind=flow`, { key: f.key('bob-key') });
  t.ok(flows.json.automations.length > 0);
  t.ok(flows.json.automations.every((a: any) => a.kind === 'flow'), 'kind filter');

  const bob = await f.req('GET', `${BASE}?limit=200`, { user: 'bob' });
  t.notOk(bob.json.automations.some((a: any) => a.id === f.refs.helper), 'bob is not in the support domain');

  const paged = await allPages((cursor) => f.req('GET', `${BASE}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { user: 'ada' }), 'automations');
  t.same(paged.items.map((a) => a.id), ids, 'pages cover the list once, in order');

  for (const query of ['kind=robot', 'archived=maybe', 'limit=-1', 'extra=1', 'cursor=%%%']) {
    t.equal((await f.req('GET', `${BASE}?${query}`, { user: 'ada' })).status, 400, query);
  }
});

t.test('revisions: newest first with the current one marked, paged; rollback moves the pointer for new sessions', async (t) => {
  const f = await startManageServer(t);
  const lookup = f.refs.lookup!;
  const ada = { key: f.key('ada-key') };
  for (const note of ['second', 'third']) {
    t.equal((await f.req('PATCH', `${BASE}/${lookup}/setup`, ada, { procedure: `Look up the contact (${note}). Use #crm.get_contact.` })).status, 200);
    t.equal((await f.req('POST', `${BASE}/${lookup}/publish`, ada, { changeNote: note })).status, 201);
  }
  const history = await allPages((cursor) => f.req('GET', `${BASE}/${lookup}/revisions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { user: 'bob' }), 'revisions');
  t.same(history.items.map((r) => [r.revision, r.current, r.changeNote]), [[3, true, 'third'], [2, false, 'second'], [1, false, history.items[2].changeNote]]);
  t.equal(history.pages, 2);

  const back = await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'ada' }, { revision: 1 });
  t.equal(back.status, 200);
  t.equal(back.json.publishedRevision, 1);
  const opened = await f.req('POST', `/api/v1/agents/${lookup}/sessions`, { key: f.key('bob-key') }, { message: 'id: c-1' });
  t.equal(opened.status, 202);
  t.equal((await f.server.service.store.repos.sessions.session(opened.json.sessionId))!.revision, 1, 'a new session runs the rolled-back revision');
  const marked = await f.req('GET', `${BASE}/${lookup}/revisions`, { user: 'ada' });
  t.same(marked.json.revisions.filter((r: any) => r.current).map((r: any) => r.revision), [1]);

  t.equal((await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'ada' }, { revision: 9 })).status, 400, 'an unknown revision');
  t.equal((await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'ada' }, { revision: 2, force: true })).status, 400, 'strict body');
  t.equal((await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'ada' }, { revision: '2' })).status, 400);
  t.equal((await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'bob' }, { revision: 2 })).status, 403, 'an operator cannot');
  t.equal((await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'gina' }, { revision: 2 })).status, 404);

  const flow = await f.req('GET', `${BASE}/${f.refs.enrich}/revisions`, { user: 'ada' });
  t.same(flow.json.revisions.map((r: any) => [r.revision, r.current, r.publishedBy]), [[1, true, null]], 'a flow\'s versions');
  t.equal((await f.req('POST', `${BASE}/${f.refs.enrich}/rollback`, { user: 'ada' }, { revision: 1 })).status, 200);

  t.equal((await f.req('GET', `${BASE}/${lookup}/revisions`, { user: 'eve' })).status, 403, 'no role in the domain');
  const foreign = await f.req('GET', `${BASE}/${lookup}/revisions`, { user: 'gina' });
  const unknown = await f.req('GET', `${BASE}/${UNKNOWN}/revisions`, { user: 'ada' });
  const garbage = await f.req('GET', `${BASE}/x-1/revisions`, { user: 'ada' });
  for (const answer of [foreign, unknown, garbage]) t.equal(answer.text, unknown.text, 'uniform 404');
  t.equal(unknown.status, 404);
  await f.settle();
});

t.test('describe: rename and description, strict, editors only', async (t) => {
  const f = await startManageServer(t);
  const path = `${BASE}/${f.refs.enrich}`;
  const renamed = await f.req('PATCH', path, { user: 'ed' }, { name: '  Enrich v2 ', description: 'Adds firmographics.' });
  t.equal(renamed.status, 200);
  t.match(renamed.json, { name: 'Enrich v2', description: 'Adds firmographics.', publishedRevision: 1 });
  t.equal((await f.req('PATCH', path, { user: 'ed' }, { description: null })).json.description, null);
  for (const body of [{}, { name: '' }, { kind: 'agent' }, { description: 'x'.repeat(2001) }]) {
    t.equal((await f.req('PATCH', path, { user: 'ada' }, body)).status, 400, JSON.stringify(body));
  }
  t.equal((await f.req('PATCH', path, { key: f.key('vic-key') }, { name: 'x' })).status, 403);
  t.equal((await f.req('PATCH', path, { user: 'gina' }, { name: 'x' })).status, 404);
});

t.test('archive: no session opens, firings skip it as NOT_PUBLISHED, rollback refused; unarchive restores; publish revives', async (t) => {
  const f = await startManageServer(t);
  const lookup = f.refs.lookup!;
  const archived = await f.req('POST', `${BASE}/${lookup}/archive`, { user: 'ada' });
  t.equal(archived.status, 200);
  t.match(archived.json, { archived: true, publishedRevision: null, archivedAt: String });
  t.equal((await f.req('POST', `${BASE}/${lookup}/archive`, { user: 'ada' }, {})).json.archivedAt, archived.json.archivedAt, 'idempotent');

  const open = await f.req('POST', `/api/v1/agents/${lookup}/sessions`, { key: f.key('bob-key') }, { message: 'id: c-1' });
  t.equal(open.status, 404, 'an archived agent cannot be opened');
  const fired = await f.req('POST', '/api/v1/triggers/fire', { key: f.key('bob-key') }, { triggerId: f.refs['new-lead'], input: { id: 'c-1' } });
  t.equal(fired.status, 202);
  await f.settle();
  const runs = await f.req('GET', `/api/v1/triggers/${f.refs['new-lead']}/runs`, { user: 'ada' });
  t.match(runs.json.runs[0].subscribers.find((s: any) => s.automationId === lookup), { status: 'skipped', code: 'NOT_PUBLISHED', reason: 'The automation is archived.' });
  t.same((await f.server.service.store.repos.triggers.subscribers(f.refs['new-lead']!)).map((s) => s.automationId), [lookup, f.refs.enrich], 'subscriptions kept');

  const onlyArchived = await f.req('GET', `${BASE}?archived=true`, { user: 'ada' });
  t.same(onlyArchived.json.automations.map((a: any) => a.id), [lookup]);
  const rollback = await f.req('POST', `${BASE}/${lookup}/rollback`, { user: 'ada' }, { revision: 1 });
  t.equal(rollback.status, 409);
  t.equal(rollback.json.error.details.reason, 'automation_archived');
  t.equal((await f.req('POST', `${BASE}/${lookup}/archive`, { user: 'bob' })).status, 403);
  t.equal((await f.req('POST', `${BASE}/${lookup}/unarchive`, { user: 'gina' })).status, 404);

  const back = await f.req('POST', `${BASE}/${lookup}/unarchive`, { user: 'ada' });
  t.match(back.json, { archived: false, archivedAt: null, publishedRevision: 1 }, 'the pointer it had comes back');
  t.equal((await f.req('POST', `/api/v1/agents/${lookup}/sessions`, { key: f.key('bob-key') }, { message: 'id: c-1' })).status, 202);

  await f.req('POST', `${BASE}/${lookup}/archive`, { user: 'ada' });
  t.equal((await f.req('POST', `${BASE}/${lookup}/publish`, { key: f.key('ada-key') }, {})).status, 201);
  const revived = (await f.req('GET', `${BASE}?limit=200`, { user: 'ada' })).json.automations.find((a: any) => a.id === lookup);
  t.match(revived, { archived: false, publishedRevision: 2 }, 'publishing a new revision makes it live again');
  await f.settle();
});
