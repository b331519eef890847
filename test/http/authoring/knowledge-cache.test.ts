// Knowledge answers are cached (runtime/knowledge/knowledge-search.tool.ts), yet every knowledge write shows on the very next turn.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { statementCounter } from '../../runtime/turns/turn-cost.fixture.js';
import { startAuthoring } from './authoring-fixture.js';

const counter = statementCounter();
/** The same question every time: a stale cached answer would be served unless each write below invalidates it. */
const QUESTION = 'When does enterprise pricing start?';

t.test('publish, unpublish, membership, selection, module and article deletes each reach the next turn\'s search', async (t) => {
  const world = await startAuthoring(t);
  const { server, refs } = world;
  const ada = world.as(refs['ada-key']);
  const remove = async (path: string) => (await call(`${server.url}/api/v1/authoring${path}`, { method: 'DELETE', headers: bearer(refs['ada-key']) })).status;
  const agent = await ada.post('/automations', { domainId: refs.sales, name: 'Pricing', initialSetup: { procedure: 'Use #knowledge.search.' } });
  const id = agent.json.id as string;
  t.equal((await ada.put(`/automations/${id}/knowledge-selection`, { mode: 'domain' })).status, 200);
  t.equal((await ada.post(`/automations/${id}/publish`)).status, 201);

  /** Opens a session with QUESTION, runs its turn, and answers the assistant's text and how many bm25 searches ran. */
  const ask = async (): Promise<{ text: string; searches: number }> => {
    counter.start();
    const opened = await call(`${server.url}/api/v1/agents/${id}/sessions`, { method: 'POST', headers: bearer(refs['ada-key']), json: { message: QUESTION } });
    t.equal(opened.status, 202, opened.text);
    await server.service.services.sessions.dispatcher.idle(opened.json.sessionId);
    const ran = counter.stop();
    const view = await call(`${server.url}/api/v1/agents/sessions/${opened.json.sessionId}`, { headers: bearer(refs['ada-key']) });
    t.equal(view.json.latestTurn.status, 'completed');
    const searches = [...ran.bySql].filter(([sql]) => sql.includes('bm25(')).reduce((sum, [, n]) => sum + n, 0);
    return { text: view.json.messages.filter((m: any) => m.role === 'assistant').at(-1).text as string, searches };
  };
  const NONE = /No published article/;

  const first = await ask();
  t.match(first.text, /Enterprise starts at 50 seats/, 'the manifest\'s published article');
  // The statement counter wraps better-sqlite3: on PostgreSQL the searches are not counted, only the answers checked.
  const counted = server.service.driver.sqlite !== null;
  if (counted) t.equal(first.searches, 1, 'the first turn searches');
  const again = await ask();
  t.match(again.text, /Enterprise starts at 50 seats/);
  if (counted) t.equal(again.searches, 0, 'the same question with no knowledge change is answered from the cache');

  const article = refs.pricing;
  t.equal((await ada.patch(`/articles/${article}`, { draftBody: 'Enterprise starts at 20 seats.' })).status, 200);
  t.match((await ask()).text, /Enterprise starts at 50 seats/, 'a draft edit is not searched');
  t.equal((await ada.post(`/articles/${article}/publish`)).status, 200);
  t.match((await ask()).text, /Enterprise starts at 20 seats/, 'a newly published version is searched at once');

  t.equal((await ada.post(`/articles/${article}/unpublish`)).status, 200);
  t.match((await ask()).text, NONE, 'an unpublished article is gone at once');
  t.equal((await ada.post(`/articles/${article}/publish`)).status, 200);
  t.match((await ask()).text, /20 seats/, 'republished');

  const module = refs['pricing-module'];
  t.equal(await remove(`/knowledge-modules/${module}/articles/${article}`), 204);
  t.match((await ask()).text, NONE, 'a removed membership is gone at once');
  t.equal((await ada.post(`/knowledge-modules/${module}/articles`, { articleId: article })).status, 201);
  t.match((await ask()).text, /20 seats/, 'an added membership is searched at once');

  t.equal((await ada.put(`/automations/${id}/knowledge-selection`, { mode: 'none' })).status, 200);
  t.match((await ask()).text, NONE, 'selection none: nothing to search');
  t.equal((await ada.put(`/automations/${id}/knowledge-selection`, { mode: 'domain' })).status, 200);
  t.match((await ask()).text, /20 seats/, 'selection back');

  t.equal(await remove(`/knowledge-modules/${module}`), 204);
  t.match((await ask()).text, NONE, 'a deleted module takes its articles out of the selection at once');
  const company = await ada.post('/knowledge-modules', { kind: 'org', name: 'Company' });
  t.equal(company.status, 201);
  t.equal((await ada.post(`/knowledge-modules/${company.json.id}/articles`, { articleId: article })).status, 201);
  t.match((await ask()).text, /20 seats/, 'a new module the selection covers is searched at once');

  t.equal(await remove(`/articles/${article}`), 204);
  t.match((await ask()).text, NONE, 'a deleted article is gone at once');
});
