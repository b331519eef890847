// Guards the declarative integration executor against a recording loopback upstream (SPEC caller credentials rules 3, 7, 8).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createHttpIntegrationExecutor, type HttpIntegrationCall, type ToolIdentity } from '../../../runtime/tools/http-integration.executor.js';
import type { ToolResult } from '../../../runtime/tools/tool-result.js';
import { crmIntegration, toolOf } from './crm-integration.fixture.js';
import { startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from './recording-upstream.js';

const ORG: ToolIdentity = { runAs: 'organization', token: 'org-token-1111', fields: { api_key: 'org-key-2222' } };

async function setup(t: Test): Promise<{ upstream: RecordingUpstream; run: (name: string, args: unknown, identity?: ToolIdentity, extra?: Partial<HttpIntegrationCall>) => Promise<ToolResult> }> {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const integration = crmIntegration(upstream.baseUrl);
  const executor = createHttpIntegrationExecutor();
  const run = (name: string, args: unknown, identity: ToolIdentity = ORG, extra: Partial<HttpIntegrationCall> = {}) =>
    executor.execute({ integration, tool: toolOf(integration, name), args, identity, ...extra });
  return { upstream, run };
}

/** Every place a value could travel upstream: header values, path, query and body. */
function everythingSent(request: RecordedRequest): string {
  return JSON.stringify([request.headers, request.rawPath, request.body]);
}

t.test('path placeholders are filled from the arguments, URL-encoded as one segment', async (t) => {
  const { upstream, run } = await setup(t);
  const result = await run('crm.get_contact', { id: 'a/b c?#%é' });
  t.equal(result.ok, true);
  t.equal(upstream.received.length, 1);
  t.equal(upstream.received[0]!.method, 'GET');
  t.equal(upstream.received[0]!.rawPath, '/contacts/a%2Fb%20c%3F%23%25%C3%A9');
  t.same(result.ok && result.output, { method: 'GET', path: '/contacts/a%2Fb%20c%3F%23%25%C3%A9' }, 'JSON answer parsed as output');
});

t.test('a path argument of "." or ".." is refused before any call (it would navigate the upstream path)', async (t) => {
  const { upstream, run } = await setup(t);
  const result = await run('crm.get_contact', { id: '..' });
  t.match(result, { ok: false, code: 'INVALID_ARGUMENTS', issues: [{ path: '/id', rule: 'path' }] });
  t.equal(upstream.received.length, 0);
});

t.test("body 'rest' sends the arguments not used in the path as JSON", async (t) => {
  const { upstream, run } = await setup(t);
  const result = await run('crm.update_contact', { id: 'c1', tier: 'pro', note: 'renewed' });
  t.equal(result.ok, true);
  const got = upstream.received[0]!;
  t.equal(got.method, 'PATCH');
  t.equal(got.rawPath, '/contacts/c1');
  t.equal(got.headers['content-type'], 'application/json');
  t.same(JSON.parse(got.body), { tier: 'pro', note: 'renewed' });
});

t.test("body 'args' sends all arguments, path arguments included", async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.add_note', { id: 'c1', text: 'hello' });
  const got = upstream.received[0]!;
  t.equal(got.method, 'POST');
  t.equal(got.rawPath, '/contacts/c1/notes');
  t.same(JSON.parse(got.body), { id: 'c1', text: 'hello' });
});

t.test('GET sends the remaining arguments as the query string (arrays repeat the key) and no body', async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.search_contacts', { q: 'acme & co', limit: 5, tags: ['vip', 'eu'] });
  const got = upstream.received[0]!;
  t.equal(got.pathname, '/contacts');
  t.equal(got.query.get('q'), 'acme & co');
  t.equal(got.query.get('limit'), '5');
  t.same(got.query.getAll('tags'), ['vip', 'eu']);
  t.equal(got.body, '');
  t.notOk(got.headers['content-type']);
});

t.test('declared query arguments go to the query string, the rest to the body', async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.merge_contacts', { id: 'c1', into: 'c2', dryRun: true });
  const got = upstream.received[0]!;
  t.equal(got.pathname, '/contacts/c1/merge');
  t.equal(got.query.get('dryRun'), 'true');
  t.same(JSON.parse(got.body), { into: 'c2' });
});

t.test('arguments failing the input schema make no upstream call; issues name path and rule, never the value', async (t) => {
  const { upstream, run } = await setup(t);
  const result = await run('crm.update_contact', { id: 'c1', tier: 'sekrit-tier-value', extra: 'sekrit-extra-value' });
  t.equal(upstream.received.length, 0, 'nothing reached the upstream');
  t.match(result, { ok: false, code: 'INVALID_ARGUMENTS' });
  if (result.ok || result.code !== 'INVALID_ARGUMENTS') return t.fail('expected INVALID_ARGUMENTS');
  t.same(
    result.issues.map((i) => [i.path, i.rule]),
    [
      ['/extra', 'additionalProperties'],
      ['/tier', 'enum'],
    ],
  );
  t.notMatch(JSON.stringify(result), /sekrit/, 'argument values are not echoed');
  const missing = await run('crm.get_contact', {});
  t.match(missing, { ok: false, code: 'INVALID_ARGUMENTS', issues: [{ path: '/id', rule: 'required' }] });
  const notObject = await run('crm.get_contact', ['c1']);
  t.match(notObject, { ok: false, code: 'INVALID_ARGUMENTS', issues: [{ path: '', rule: 'type' }] });
  t.equal(upstream.received.length, 0);
});

t.test("the caller's token and fields go into the integration's declared headers with its scheme", async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.get_contact', { id: 'c1' }, { runAs: 'caller', token: 'caller-token-aaaa', fields: { api_key: 'caller-key-bbbb' } });
  const got = upstream.received[0]!;
  t.equal(got.headers.authorization, 'Bearer caller-token-aaaa');
  t.equal(got.headers['x-api-key'], 'caller-key-bbbb');
  t.notMatch(everythingSent(got), /org-/, "none of the organization's material is merged in");
});

t.test('caller fields the integration does not declare are removed before invocation (rule 3)', async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.get_contact', { id: 'c1' }, { runAs: 'caller', fields: { api_key: 'caller-key-bbbb', password: 'undeclared-secret-cccc' } });
  const got = upstream.received[0]!;
  t.equal(got.headers['x-api-key'], 'caller-key-bbbb');
  t.notMatch(everythingSent(got), /undeclared-secret-cccc/);
  t.notOk(got.headers.password);
  t.notOk(got.headers.authorization, 'no token was supplied, so no Authorization header is sent');
});

t.test('the organization identity is used when told, with its token and fields', async (t) => {
  const { upstream, run } = await setup(t);
  await run('crm.get_contact', { id: 'c1' }, ORG);
  const got = upstream.received[0]!;
  t.equal(got.headers.authorization, 'Bearer org-token-1111');
  t.equal(got.headers['x-api-key'], 'org-key-2222');
});

t.test('a token is not sent to an integration that declares no token header; a scheme-less token is sent raw', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const executor = createHttpIntegrationExecutor();
  const fieldsOnly = crmIntegration(upstream.baseUrl, { auth: { fields: [{ name: 'api_key', header: 'X-Api-Key' }] } });
  await executor.execute({ integration: fieldsOnly, tool: toolOf(fieldsOnly, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  t.notOk(upstream.received[0]!.headers.authorization);
  t.notMatch(everythingSent(upstream.received[0]!), /org-token-1111/);
  const raw = crmIntegration(upstream.baseUrl, { auth: { token: { header: 'X-Token' } } });
  await executor.execute({ integration: raw, tool: toolOf(raw, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  t.equal(upstream.received[1]!.headers['x-token'], 'org-token-1111');
  t.notOk(upstream.received[1]!.headers['x-api-key'], 'fields not declared by this integration are not sent');
});

t.test("the service's own key never goes upstream: requests are built from the definition and identity only", async (t) => {
  const { upstream, run } = await setup(t);
  // Whatever else a caller hands the executor (an incoming request's headers, say) is not part of the call.
  const smuggled = { headers: { authorization: 'Bearer sv_live_service_key' }, request: { headers: { authorization: 'Bearer sv_live_service_key' } } };
  await run('crm.get_contact', { id: 'c1' }, { runAs: 'caller', fields: { api_key: 'caller-key-bbbb' } }, smuggled as Partial<HttpIntegrationCall>);
  const got = upstream.received[0]!;
  t.notOk(got.headers.authorization);
  t.notMatch(everythingSent(got), /sv_live_service_key/);
  t.same(Object.keys(got.headers).sort(), ['accept', 'connection', 'host', 'user-agent', 'x-api-key']);
});

t.test('an upstream 4xx is an ordinary failure, not retried as the organization (rule 8); echoed secrets are redacted', async (t) => {
  const { upstream, run } = await setup(t);
  upstream.respond((request, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `token ${String(request.headers.authorization).slice('Bearer '.length)} rejected` }));
  });
  const result = await run('crm.get_contact', { id: 'c1' }, { runAs: 'caller', token: 'caller-token-aaaa' });
  t.match(result, { ok: false, code: 'UPSTREAM_ERROR', status: 401, message: /401/ });
  t.same(result.ok === false && result.code === 'UPSTREAM_ERROR' && result.detail, { error: 'token [redacted] rejected' });
  t.equal(upstream.received.length, 1, 'exactly one call: no fallback retry');
});

t.test('an upstream 5xx with a text body is an ordinary failure carrying the text', async (t) => {
  const { upstream, run } = await setup(t);
  upstream.respond((_request, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('maintenance');
  });
  const result = await run('crm.get_contact', { id: 'c1' });
  t.match(result, { ok: false, code: 'UPSTREAM_ERROR', status: 503, detail: 'maintenance' });
});

t.test('a redirect is not followed (it would carry credentials elsewhere): ordinary failure with its status', async (t) => {
  const { upstream, run } = await setup(t);
  upstream.respond((_request, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/steal' });
    res.end();
  });
  const result = await run('crm.get_contact', { id: 'c1' });
  t.match(result, { ok: false, code: 'UPSTREAM_ERROR', status: 302 });
  t.equal(upstream.received.length, 1);
});

t.test('a call still running at its deadline fails with TOOL_TIMEOUT (deadline injected, no waiting)', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(() => undefined); // never answers
  const deadline = new AbortController();
  let askedMs = 0;
  const executor = createHttpIntegrationExecutor({
    timeoutMs: 1234,
    timeoutSignal: (ms) => {
      askedMs = ms;
      return deadline.signal;
    },
  });
  const integration = crmIntegration(upstream.baseUrl);
  const pending = executor.execute({ integration, tool: toolOf(integration, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  await upstream.nextRequest();
  deadline.abort(new DOMException('deadline', 'TimeoutError'));
  t.match(await pending, { ok: false, code: 'TOOL_TIMEOUT', message: /1234 ms/ });
  t.equal(askedMs, 1234);
});

t.test('the default deadline is a real timer of the configured length', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(() => undefined);
  const integration = crmIntegration(upstream.baseUrl);
  const result = await createHttpIntegrationExecutor({ timeoutMs: 50 }).execute({ integration, tool: toolOf(integration, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  t.match(result, { ok: false, code: 'TOOL_TIMEOUT' });
});

t.test("the caller's signal cancels a call (TOOL_CANCELLED, not a timeout)", async (t) => {
  const { upstream, run } = await setup(t);
  upstream.respond(() => undefined);
  const cancel = new AbortController();
  const pending = run('crm.get_contact', { id: 'c1' }, ORG, { signal: cancel.signal });
  await upstream.nextRequest();
  cancel.abort();
  t.match(await pending, { ok: false, code: 'TOOL_CANCELLED' });
});

t.test('an unreachable upstream fails with UPSTREAM_UNAVAILABLE', async (t) => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const integration = crmIntegration(`http://127.0.0.1:${port}`);
  const result = await createHttpIntegrationExecutor().execute({ integration, tool: toolOf(integration, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  t.match(result, { ok: false, code: 'UPSTREAM_UNAVAILABLE' });
  t.notMatch(JSON.stringify(result), /org-/);
});

t.test('a response over the size cap fails with RESPONSE_TOO_LARGE (declared length or streamed)', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const integration = crmIntegration(upstream.baseUrl);
  const executor = createHttpIntegrationExecutor({ maxResponseBytes: 1024 });
  const call = () => executor.execute({ integration, tool: toolOf(integration, 'crm.get_contact'), args: { id: 'c1' }, identity: ORG });
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
    res.end('x'.repeat(5000));
  });
  t.match(await call(), { ok: false, code: 'RESPONSE_TOO_LARGE' });
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('x'.repeat(800));
    res.end('y'.repeat(800));
  });
  t.match(await call(), { ok: false, code: 'RESPONSE_TOO_LARGE' });
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('z'.repeat(1024));
  });
  t.match(await call(), { ok: true, output: 'z'.repeat(1024) }, 'exactly at the cap is fine');
});

t.test('a non-text answer is returned as a file beside a description of it', async (t) => {
  const { upstream, run } = await setup(t);
  const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10]);
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="../card c1.pdf"' });
    res.end(pdf);
  });
  const result = await run('crm.export_contact', { id: 'c1' });
  if (!result.ok) return t.fail(`expected success, got ${result.code}`);
  t.equal(result.files.length, 1);
  t.equal(result.files[0]!.name, 'card c1.pdf', 'a file name, never a path');
  t.equal(result.files[0]!.mediaType, 'application/pdf');
  t.ok(result.files[0]!.content.equals(pdf));
  t.same(result.output, { file: { name: 'card c1.pdf', mediaType: 'application/pdf', sizeBytes: pdf.length } });
});

t.test('the JSON file convention { file: { name, mediaType, base64 } } yields a file and keeps the other keys', async (t) => {
  const { upstream, run } = await setup(t);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]);
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ contactId: 'c1', file: { name: 'avatar.png', mediaType: 'image/png', base64: png.toString('base64') } }));
  });
  const result = await run('crm.export_contact', { id: 'c1' });
  if (!result.ok) return t.fail(`expected success, got ${result.code}`);
  t.same(result.output, { contactId: 'c1', file: { name: 'avatar.png', mediaType: 'image/png', sizeBytes: png.length } });
  t.equal(result.files.length, 1);
  t.ok(result.files[0]!.content.equals(png));
});

t.test('text answers are returned as text; empty answers as null', async (t) => {
  const { upstream, run } = await setup(t);
  upstream.respond((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    res.end('id,name\nc1,Ada\n');
  });
  t.match(await run('crm.get_contact', { id: 'c1' }), { ok: true, output: 'id,name\nc1,Ada\n', files: [] });
  upstream.respond((_r, res) => {
    res.writeHead(204);
    res.end();
  });
  t.match(await run('crm.get_contact', { id: 'c1' }), { ok: true, status: 204, output: null, files: [] });
});

t.test('with allowPrivateNetworks false even an operator-declared loopback base URL is refused', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const integration = crmIntegration(upstream.baseUrl);
  const result = await createHttpIntegrationExecutor({ allowPrivateNetworks: false }).execute({
    integration,
    tool: toolOf(integration, 'crm.get_contact'),
    args: { id: 'c1' },
    identity: ORG,
  });
  t.match(result, { ok: false, code: 'DESTINATION_REFUSED' });
  t.equal(upstream.received.length, 0);
});
