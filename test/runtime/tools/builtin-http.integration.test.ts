// Guards the built-in `http` integration: private destinations refused by default, requests mapped, redirects per hop.
import t from 'tap';
import { createBuiltinHttpExecutor, HTTP_GET_TOOL, HTTP_INTEGRATION, HTTP_REQUEST_TOOL } from '../../../runtime/tools/builtin-http.integration.js';
import { startRecordingUpstream } from './recording-upstream.js';

t.test('private and loopback destinations are refused by default, by address and by name, with no request made', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const http = createBuiltinHttpExecutor();
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `${upstream.baseUrl}/x` } }), { ok: false, code: 'DESTINATION_REFUSED' });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `http://localhost:${upstream.port}/x` } }), { ok: false, code: 'DESTINATION_REFUSED' });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `http://[::ffff:127.0.0.1]:${upstream.port}/x` } }), { ok: false, code: 'DESTINATION_REFUSED' });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `http://0x7f.1:${upstream.port}/x` } }), { ok: false, code: 'DESTINATION_REFUSED' });
  t.equal(upstream.received.length, 0);
});

t.test('with allowPrivateNetworks, http.get fetches and returns the parsed body', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const http = createBuiltinHttpExecutor({ allowPrivateNetworks: true });
  const result = await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `${upstream.baseUrl}/items?page=2`, headers: { 'X-Trace': 'abc' } } });
  t.match(result, { ok: true, status: 200, output: { method: 'GET', path: '/items?page=2' } });
  t.equal(upstream.received[0]!.headers['x-trace'], 'abc');
});

t.test('http.request sends JSON bodies as JSON and string bodies as text, with the given method and headers', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const http = createBuiltinHttpExecutor({ allowPrivateNetworks: true });
  await http.execute({ toolName: HTTP_REQUEST_TOOL, args: { method: 'POST', url: `${upstream.baseUrl}/hooks`, body: { a: 1 }, headers: { Authorization: 'Bearer agent-chosen' } } });
  await http.execute({ toolName: HTTP_REQUEST_TOOL, args: { method: 'PUT', url: `${upstream.baseUrl}/notes/1`, body: 'plain words' } });
  const [json, text] = upstream.received;
  t.equal(json!.method, 'POST');
  t.equal(json!.headers['content-type'], 'application/json');
  t.equal(json!.headers.authorization, 'Bearer agent-chosen');
  t.same(JSON.parse(json!.body), { a: 1 });
  t.equal(text!.method, 'PUT');
  t.equal(text!.headers['content-type'], 'text/plain; charset=utf-8');
  t.equal(text!.body, 'plain words');
});

t.test('invalid arguments make no request: bad URL scheme, transport-owned headers, a body on GET', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const http = createBuiltinHttpExecutor({ allowPrivateNetworks: true });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: 'file:///etc/passwd' } }), { ok: false, code: 'INVALID_ARGUMENTS', issues: [{ path: '/url' }] });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `${upstream.baseUrl}/`, headers: { Host: 'elsewhere' } } }), {
    ok: false,
    code: 'INVALID_ARGUMENTS',
    issues: [{ path: '/headers/Host', rule: 'header' }],
  });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `${upstream.baseUrl}/`, headers: { 'X-Bad': 'a\r\nInjected: 1' } } }), { ok: false, code: 'INVALID_ARGUMENTS' });
  t.match(await http.execute({ toolName: HTTP_REQUEST_TOOL, args: { method: 'GET', url: `${upstream.baseUrl}/`, body: 'x' } }), {
    ok: false,
    code: 'INVALID_ARGUMENTS',
    issues: [{ path: '/body', rule: 'body' }],
  });
  t.equal(upstream.received.length, 0);
});

t.test('redirects are followed per hop; 303 after POST continues as GET; leaving the origin drops Authorization', async (t) => {
  const first = await startRecordingUpstream();
  const second = await startRecordingUpstream();
  t.teardown(() => first.close());
  t.teardown(() => second.close());
  first.respond((request, res) => {
    if (request.pathname === '/start') {
      res.writeHead(303, { location: '/moved' });
      return res.end();
    }
    // Another origin: same address, other host name and port.
    res.writeHead(307, { location: `http://localhost:${second.port}/final` });
    res.end();
  });
  const http = createBuiltinHttpExecutor({ allowPrivateNetworks: true });
  const result = await http.execute({ toolName: HTTP_REQUEST_TOOL, args: { method: 'POST', url: `${first.baseUrl}/start`, body: { a: 1 }, headers: { authorization: 'Bearer agent-chosen' } } });
  t.match(result, { ok: true, output: { method: 'GET', path: '/final' } });
  t.same(first.received.map((r) => [r.method, r.pathname, r.body]), [
    ['POST', '/start', '{"a":1}'],
    ['GET', '/moved', ''],
  ]);
  t.equal(first.received[1]!.headers.authorization, 'Bearer agent-chosen', 'same origin keeps it');
  t.notOk(second.received[0]!.headers.authorization, 'another origin does not get it');
});

t.test('redirects stop at the configured limit and the last answer is an ordinary failure', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond((_r, res) => {
    res.writeHead(302, { location: '/again' });
    res.end();
  });
  const http = createBuiltinHttpExecutor({ allowPrivateNetworks: true, maxRedirects: 2 });
  t.match(await http.execute({ toolName: HTTP_GET_TOOL, args: { url: `${upstream.baseUrl}/` } }), { ok: false, code: 'UPSTREAM_ERROR', status: 302 });
  t.equal(upstream.received.length, 3);
});

t.test('the integration describes http.request as a write tool and http.get as read-only', async (t) => {
  t.equal(HTTP_INTEGRATION.id, 'http');
  t.same(HTTP_INTEGRATION.tools.map((tool) => [tool.name, tool.readonly]), [
    [HTTP_REQUEST_TOOL, false],
    [HTTP_GET_TOOL, true],
  ]);
});
