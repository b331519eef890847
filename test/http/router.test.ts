// The router: literal segments beat parameters, 405 lists the allowed methods, and a repeated lookup never shares params.
import t from 'tap';
import { Router } from '../../http/router.js';
import type { Route } from '../../http/types.js';

const route = (method: Route['method'], path: string): Route<null> => ({ method, path, doc: { summary: path }, handler: () => ({ status: 200 }) });

const router = new Router<null>([
  route('GET', '/api/v1/agents/:automationId/sessions'),
  route('GET', '/api/v1/agents/sessions/:sessionId'),
  route('GET', '/api/v1/agents/sessions/recent'),
  route('POST', '/api/v1/agents/:automationId/sessions'),
  route('GET', '/api/v1/me'),
]);

const matched = (method: string, path: string) => {
  const found = router.lookup(method, path);
  return found !== null && 'match' in found ? found.match : null;
};

t.test('the most specific pattern wins: a literal path over a parameter, literal segments over parameters', async (t) => {
  t.equal(matched('GET', '/api/v1/agents/sessions/recent')?.route.path, '/api/v1/agents/sessions/recent');
  t.same(matched('GET', '/api/v1/agents/sessions/abc')?.params, { sessionId: 'abc' });
  t.equal(matched('GET', '/api/v1/agents/sessions/abc')?.route.path, '/api/v1/agents/sessions/:sessionId');
  t.same(matched('GET', '/api/v1/agents/x%20y/sessions')?.params, { automationId: 'x y' });
  t.equal(matched('GET', '/api/v1/me/')?.route.path, '/api/v1/me', 'a trailing slash is the same path');
});

t.test('a path served for other methods is 405 with them; an unknown path or a bad escape is 404', async (t) => {
  t.same(router.lookup('DELETE', '/api/v1/agents/a/sessions'), { allowed: ['GET', 'POST'] });
  t.same(router.lookup('POST', '/api/v1/me'), { allowed: ['GET'] });
  t.equal(router.lookup('GET', '/api/v1/nope'), null);
  t.equal(router.lookup('GET', '/api/v1/agents/%E0%A4%A/sessions'), null);
});

t.test('the same lookup twice (adapter, then kernel) gives equal matches with params of their own', async (t) => {
  const first = matched('POST', '/api/v1/agents/a1/sessions')!;
  first.params.automationId = 'changed by a handler';
  const second = matched('POST', '/api/v1/agents/a1/sessions')!;
  t.equal(second.route, first.route);
  t.same(second.params, { automationId: 'a1' });
});

t.test('a route added later is found (the indexes are rebuilt) and a duplicate is refused', async (t) => {
  const r = new Router<null>([route('GET', '/a/:id')]);
  t.equal(r.lookup('GET', '/a/b') !== null, true);
  r.add(route('GET', '/a/b'));
  const found = r.lookup('GET', '/a/b');
  t.equal(found !== null && 'match' in found ? found.match.route.path : null, '/a/b');
  t.throws(() => r.add(route('GET', '/a/b')), /registered twice/);
});
