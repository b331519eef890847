// End to end: an agent authored and published through the API, with knowledge authored through the API, answers from an article in a session.
import t from 'tap';
import { bearer, call } from '../../helpers/http.js';
import { startAuthoring, userToken } from './authoring-fixture.js';

t.test('create -> knowledge -> select -> verify -> publish -> POST /agents/:id/sessions answers from the published article', async (t) => {
  const world = await startAuthoring(t);
  const { server, refs } = world;
  // Authoring with the short-lived user token, running with the personal key: both act as Ada.
  const author = world.as(await userToken(server, 'ada@acme.test', 'ada-password-1'));

  const article = await author.post(`/knowledge-bases/${refs.playbook}/articles`, {
    title: 'Refund policy',
    draftBody: 'Shipping is free above 100 euros.\n\nRefunds are accepted within 45 days of delivery when the item is unused.',
  });
  t.equal(article.status, 201);
  const decoy = await author.post(`/knowledge-bases/${refs.playbook}/articles`, { title: 'Office hours', draftBody: 'The office opens at nine.' });
  for (const id of [article.json.id, decoy.json.id]) t.equal((await author.post(`/articles/${id}/publish`)).status, 200);
  const module = await author.post('/knowledge-modules', { kind: 'domain', domainId: refs.sales, name: 'Customer policies' });
  t.equal(module.status, 201);
  for (const id of [article.json.id, decoy.json.id]) t.equal((await author.post(`/knowledge-modules/${module.json.id}/articles`, { articleId: id })).status, 201);

  const agent = await author.post('/automations', {
    domainId: refs.sales,
    name: 'Policy answers',
    initialSetup: { principles: 'Answer from the knowledge base only.', procedure: 'Look the question up with #knowledge.search and answer with what it finds.' },
  });
  t.equal(agent.status, 201);
  const id = agent.json.id;
  const selection = await author.put(`/automations/${id}/knowledge-selection`, { mode: 'modules', moduleIds: [module.json.id] });
  t.same(selection.json, { mode: 'modules', moduleIds: [module.json.id] });

  const verify = await author.get(`/automations/${id}/verify`);
  t.same(verify.json, { findings: [], plannedBelt: [{ integrationId: 'knowledge', identityMode: 'service' }], warnings: [] });
  const published = await author.post(`/automations/${id}/publish`, { changeNote: 'first version' });
  t.equal(published.status, 201);
  t.equal(published.json.revision, 1);

  const opened = await call(`${server.url}/api/v1/agents/${id}/sessions`, {
    method: 'POST',
    headers: bearer(refs['ada-key']),
    json: { message: 'How many days do customers have for refunds?' },
  });
  t.equal(opened.status, 202, opened.text);
  const { sessionId } = opened.json;
  await server.service.services.sessions.dispatcher.idle(sessionId);

  const session = await call(`${server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(refs['ada-key']) });
  t.equal(session.status, 200);
  t.equal(session.json.latestTurn.status, 'completed');
  t.same(session.json.toolCalls.map((c: any) => [c.toolName, c.status]), [['knowledge.search', 'succeeded']]);
  const answer = session.json.messages.filter((m: any) => m.role === 'assistant').at(-1);
  t.match(answer.text, /Refund policy/, 'cites the article');
  t.match(answer.text, /within 45 days/, 'answers from its published passage');
  t.notMatch(answer.text, /office opens/, 'the unrelated article ranks below or not at all');
});

t.test('the session runs the published revision and the live selection: a draft edit changes nothing until republished', async (t) => {
  const world = await startAuthoring(t);
  const { server, refs } = world;
  const ada = world.as(refs['ada-key']);
  const agent = await ada.post('/automations', { domainId: refs.sales, name: 'Pricing', initialSetup: { procedure: 'Use #knowledge.search.' } });
  const id = agent.json.id;
  t.equal((await ada.put(`/automations/${id}/knowledge-selection`, { mode: 'domain' })).status, 200);
  t.equal((await ada.post(`/automations/${id}/publish`)).status, 201);
  await ada.patch(`/automations/${id}/setup`, { procedure: 'Answer without tools.' });

  const ask = async (message: string) => {
    const opened = await call(`${server.url}/api/v1/agents/${id}/sessions`, { method: 'POST', headers: bearer(refs['ada-key']), json: { message } });
    await server.service.services.sessions.dispatcher.idle(opened.json.sessionId);
    const view = await call(`${server.url}/api/v1/agents/sessions/${opened.json.sessionId}`, { headers: bearer(refs['ada-key']) });
    return view.json.messages.filter((m: any) => m.role === 'assistant').at(-1).text as string;
  };
  t.match(await ask('When does enterprise pricing start?'), /Enterprise starts at 50 seats/, 'domain mode finds the manifest\'s pricing module article');

  t.equal((await ada.put(`/automations/${id}/knowledge-selection`, { mode: 'none' })).status, 200);
  t.match(await ask('When does enterprise pricing start?'), /No published article/, 'selection none: nothing to search');
});
