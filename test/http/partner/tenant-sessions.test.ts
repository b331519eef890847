// The session list, paged reads and lifecycle routes mirrored for customer tenants: same rules, as the X-Service-Subject person.
import t from 'tap';
import { staffedCustomer, startPartner } from './partner-fixture.js';

t.test('a partner lists, renames, archives and deletes a customer person\'s sessions under the /api/v1 rules', async (t) => {
  const p = await startPartner(t);
  const customer = await staffedCustomer(p, 'lifecycle-co');
  await customer.vouch('op-1', 'operator');
  await customer.vouch('viewer-1', 'viewer');
  const base = `/organizations/${customer.orgId}/agents`;
  const as = (subject: string) => ({ 'x-service-subject': subject });

  const opened = await p.api('POST', `${base}/${customer.automation('welcome')}/sessions`, customer.key, { message: 'Hello', visibility: 'personal' }, as('op-1'));
  t.equal(opened.status, 202);
  const id = opened.json.sessionId as string;
  await p.c.settle(id);

  const listed = await p.api('GET', `${base}/sessions?limit=10`, customer.key, undefined, as('op-1'));
  t.equal(listed.status, 200);
  t.same(listed.json.sessions.map((s: { sessionId: string }) => s.sessionId), [id]);
  t.same((await p.api('GET', `${base}/sessions`, customer.key, undefined, as('viewer-1'))).json.sessions, [], 'a personal chat is its opener\'s only');
  t.equal((await p.api('PATCH', `${base}/sessions/${id}`, customer.key, { title: 'x' }, as('viewer-1'))).status, 404);

  // Another customer's person: the same 404 as an unknown id, on every lifecycle route.
  const other = await staffedCustomer(p, 'elsewhere-co');
  await other.vouch('op-2', 'operator');
  const foreign = `/organizations/${other.orgId}/agents/sessions`;
  const unknown = await p.api('PATCH', `${foreign}/0190f3c4-7b2a-7cc1-8a55-2d5b3f4e6a71`, other.key, { title: 'x' }, as('op-2'));
  t.equal(unknown.status, 404);
  for (const [method, suffix, body] of [['PATCH', '', { title: 'x' }], ['POST', '/archive', undefined], ['DELETE', '', undefined], ['GET', '/messages', undefined]] as const) {
    const answer = await p.api(method, `${foreign}/${id}${suffix}`, other.key, body, as('op-2'));
    t.same([answer.status, answer.text], [404, unknown.text], `${method}${suffix} from another organization`);
  }
  t.same((await p.api('GET', foreign, other.key, undefined, as('op-2'))).json.sessions, []);

  const renamed = await p.api('PATCH', `${base}/sessions/${id}`, customer.key, { title: 'Greeting', outcome: 'resolved' }, as('op-1'));
  t.match(renamed.json, { title: 'Greeting', outcome: 'resolved' });
  t.equal((await p.api('PATCH', `${base}/sessions/${id}`, customer.key, { title: 'x', extra: 1 }, as('op-1'))).status, 400, 'the same strict body');
  t.match((await p.api('POST', `${base}/sessions/${id}/archive`, customer.key, undefined, as('op-1'))).json, { status: 'archived' });
  t.match((await p.api('POST', `${base}/sessions/${id}/unarchive`, customer.key, undefined, as('op-1'))).json, { status: 'active' });
  const messages = await p.api('GET', `${base}/sessions/${id}/messages?limit=1`, customer.key, undefined, as('op-1'));
  t.equal(messages.json.messages.length, 1);
  t.type(messages.json.nextCursor, 'string');
  t.equal((await p.api('GET', `${base}/sessions/${id}/tool-calls`, customer.key, undefined, as('op-1'))).status, 200);
  t.equal((await p.api('DELETE', `${base}/sessions/${id}`, customer.key, undefined, {})).status, 404, 'no subject: the neutral 404');
  t.equal((await p.api('DELETE', `${base}/sessions/${id}`, customer.key, undefined, as('op-1'))).status, 204);
  t.equal((await p.api('GET', `${base}/sessions/${id}`, customer.key, undefined, as('op-1'))).status, 404);
});
