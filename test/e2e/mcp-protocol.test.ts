// MCP Streamable HTTP protocol rules over raw HTTP: headers, sessions, JSON-RPC errors, batches per revision, SSE, waits.
import t from 'tap';
import { bearer, call } from '../helpers/http.js';
import { CANARY, sseMessages, startMcpWorld, UPGRADE, type McpWorld } from './mcp-fixture.js';

const init = (version = '2025-06-18', id: string | number = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A raw initialize; returns the headers every later request needs. */
async function session(world: McpWorld, version = '2025-06-18', user: 'ada' | 'gina' = 'ada') {
  const answer = await world.post(init(version), bearer(world.key(user)));
  if (answer.status !== 200) throw new Error(`initialize answered ${answer.status}: ${answer.text}`);
  const negotiated = answer.json.result.protocolVersion as string;
  const headers: Record<string, string> = {
    ...bearer(world.key(user)),
    'mcp-session-id': answer.headers.get('mcp-session-id')!,
    'mcp-protocol-version': negotiated,
  };
  return { answer, headers };
}

/** Tool names are `<slug of the agent name>_<id suffix>` (2025-03-26 sessions get no `_meta` to match on). */
const SLUGS: Record<string, string> = { lookup: 'contact_lookup_', upgrader: 'tier_upgrader_' };

async function toolName(world: McpWorld, headers: Record<string, string>, ref: string): Promise<string> {
  const listed = await world.post({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }, headers);
  return listed.json.result.tools.find((tool: any) => tool.name.startsWith(SLUGS[ref]!)).name;
}

t.test('initialize answers JSON with Mcp-Session-Id; an unknown revision is offered 2025-06-18, 2025-03-26 is kept', async (t) => {
  const world = await startMcpWorld(t);
  const modern = await world.post(init('2025-11-25'), bearer(world.key('ada')));
  t.equal(modern.status, 200);
  t.match(modern.headers.get('content-type'), /^application\/json/);
  t.match(modern.headers.get('mcp-session-id'), /^[A-Za-z0-9_-]{43}$/);
  t.match(modern.json, { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'switchyard' }, capabilities: { tools: {} } } });
  const legacy = await world.post(init('2025-03-26'), bearer(world.key('ada')));
  t.equal(legacy.json.result.protocolVersion, '2025-03-26');
  t.notOk('title' in legacy.json.result.serverInfo, '2025-03-26 has no title field');

  const bad = await world.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, bearer(world.key('ada')));
  t.equal(bad.status, 200);
  t.match(bad.json, { id: 1, error: { code: -32602 } }, 'initialize without capabilities/clientInfo is invalid params');
  t.equal(bad.headers.get('mcp-session-id'), null, 'and creates no session');
});

t.test('headers: unsupported MCP-Protocol-Version 400, missing session 400, unknown session 404 (uniform with a bad key)', async (t) => {
  const world = await startMcpWorld(t);
  const { headers } = await session(world);
  const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
  t.same((await world.post(ping, headers)).json, { jsonrpc: '2.0', id: 7, result: {} });

  const badVersion = await world.post(ping, { ...headers, 'mcp-protocol-version': '1900-01-01' });
  t.equal(badVersion.status, 400);
  t.match(badVersion.json, { jsonrpc: '2.0', id: null, error: { code: -32000, message: /MCP-Protocol-Version/ } });
  const otherVersion = await world.post(ping, { ...headers, 'mcp-protocol-version': '2025-03-26' });
  t.equal(otherVersion.status, 400, 'a supported revision other than the negotiated one is refused too');
  const { 'mcp-protocol-version': _v, ...noVersion } = headers;
  t.equal((await world.post(ping, noVersion)).status, 200, 'no header: the negotiated revision applies');

  const { 'mcp-session-id': _s, ...noSession } = headers;
  const missing = await world.post(ping, noSession);
  t.equal(missing.status, 400);
  t.match(missing.json.error.message, /Mcp-Session-Id/);

  const del = (extra: Record<string, string>) => call(world.endpoint.href, { method: 'DELETE', headers: { ...headers, ...extra } });
  t.equal((await del({ 'mcp-protocol-version': '1900-01-01' })).status, 400, 'DELETE checks the version header too');
  t.equal((await call(world.endpoint.href, { method: 'DELETE', headers: noSession })).status, 400, 'DELETE needs the session header');

  const unknown = await world.post(ping, { ...headers, 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
  const badKey = await world.post(ping, { ...headers, authorization: 'Bearer sv_nope' });
  const noKey = await world.post(ping, { 'mcp-session-id': headers['mcp-session-id'] });
  for (const answer of [unknown, badKey, noKey]) {
    t.equal(answer.status, 404);
    t.equal(answer.text, unknown.text, 'byte-identical uniform 404');
  }
});

t.test('JSON-RPC errors: -32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params', async (t) => {
  const world = await startMcpWorld(t);
  const { headers } = await session(world);

  const parse = await world.post('{"jsonrpc": "2.0", "id": 1, "method": ', headers);
  t.equal(parse.status, 400);
  t.same(parse.json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON.' } });

  for (const body of [{ foo: 1 }, { jsonrpc: '1.0', id: 2, method: 'ping' }, { jsonrpc: '2.0', id: null, method: 'ping' }, 42]) {
    const invalid = await world.post(body, headers);
    t.equal(invalid.status, 400, JSON.stringify(body));
    t.equal(invalid.json.error.code, -32600);
  }
  t.equal((await world.post({ jsonrpc: '1.0', id: 2, method: 'ping' }, headers)).json.id, 2, 'the id is echoed when readable');

  const unknown = await world.post({ jsonrpc: '2.0', id: 3, method: 'resources/list' }, headers);
  t.equal(unknown.status, 200);
  t.match(unknown.json, { id: 3, error: { code: -32601 } });

  const name = await toolName(world, headers, 'lookup');
  const cases = [
    { name: 'no_such_tool_0123456789ab', arguments: { message: 'hi' } },
    { name, arguments: {} },
    { name, arguments: { message: '   ' } },
    { name, arguments: { message: 'x'.repeat(8001) } },
    { name, arguments: { message: 'hi', sessionId: 'not-a-uuid' } },
    { name, arguments: { message: 'hi', extra: true } },
    { name, arguments: { message: 'hi', callerCredentials: { integrations: { crm: { token: CANARY, unknown: 1 } } } } },
    { arguments: { message: 'hi' } },
  ];
  for (const params of cases) {
    const answer = await world.post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params }, { ...headers, accept: 'application/json' });
    t.equal(answer.status, 200);
    t.equal(answer.json.error?.code, -32602, JSON.stringify(params).slice(0, 80));
    t.notOk(answer.text.includes(CANARY), 'submitted values are not echoed');
  }
  t.equal(world.upstream.received.length, 0, 'no turn ran');
  const wrongSuffix = name.replace(/_[0-9a-f]{12}$/, '_000000000000');
  const other = await world.post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: wrongSuffix, arguments: { message: 'hi' } } }, { ...headers, accept: 'application/json' });
  t.match(other.json, { id: 5, error: { code: -32602, message: /Unknown tool/ } });
});

t.test('notifications and responses get 202; GET is 405; wrong media types are 406/415; a key in the URL is refused', async (t) => {
  const world = await startMcpWorld(t);
  const { headers } = await session(world);
  const accepted = await world.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  t.equal(accepted.status, 202);
  t.equal(accepted.text, '');
  t.equal((await world.post({ jsonrpc: '2.0', id: 'srv-1', result: {} }, headers)).status, 202, 'a response from the client');

  const get = await call(world.endpoint.href, { headers: { ...headers, accept: 'text/event-stream' } });
  t.equal(get.status, 405);
  t.equal(get.headers.get('allow'), 'POST, DELETE');

  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  t.equal((await world.post(ping, { ...headers, accept: 'text/html' })).status, 406);
  t.equal((await world.post(JSON.stringify(ping), { ...headers, 'content-type': 'text/plain' })).status, 415);

  const inQuery = await call(`${world.endpoint.href}?key=${world.key('ada')}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(ping),
  });
  t.equal(inQuery.status, 400);
  t.match(inQuery.json, { error: { code: 'VALIDATION', message: /Authorization header/ } });
  t.notOk(inQuery.text.includes(world.key('ada')));
  const { authorization: _a, ...keyless } = headers;
  const onlyQuery = await call(`${world.endpoint.href}?access_token=${world.key('ada')}`, { method: 'POST', headers: { ...keyless, 'content-type': 'application/json' }, body: JSON.stringify(ping) });
  t.equal(onlyQuery.status, 400, 'never read as a credential');

  const nullOrigin = await world.post(ping, { ...headers, origin: 'null' });
  t.equal(nullOrigin.status, 403, 'an opaque origin is foreign too');
  t.equal((await world.post(ping, { ...headers, origin: 'https://ASSISTANT.example.test:443' })).status, 200, 'origins compare normalized');
});

t.test('batches: allowed on a 2025-03-26 session (initialize never inside one), refused on 2025-06-18', async (t) => {
  const world = await startMcpWorld(t);
  const legacy = (await session(world, '2025-03-26')).headers;
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { bogus: true },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  const answer = await world.post(batch, legacy);
  t.equal(answer.status, 200);
  t.equal(answer.json.length, 3, 'one response per request plus one error per invalid entry; none for the notification');
  t.match(answer.json, [{ id: null, error: { code: -32600 } }, { id: 1, result: {} }, { id: 2, result: { tools: [{}, {}] } }]);
  const tools = answer.json[2].result.tools;
  t.notOk('outputSchema' in tools[0], 'no 2025-06-18 fields on a 2025-03-26 session');
  t.equal((await world.post([], legacy)).status, 400);
  t.equal((await world.post([init('2025-03-26')], legacy)).json.error.code, -32600);

  const modern = (await session(world)).headers;
  const refused = await world.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }], modern);
  t.equal(refused.status, 400);
  t.match(refused.json.error, { code: -32600, message: /batches/ });

  // A 2025-03-26 session's tool results carry the facts as JSON text; structuredContent is 2025-06-18.
  const name = await toolName(world, legacy, 'lookup');
  const call1 = await world.post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: { message: 'id: c-3' } } }, { ...legacy, accept: 'application/json' });
  t.notOk('structuredContent' in call1.json.result);
  t.match(JSON.parse(call1.json.result.content[1].text), { status: 'completed' });
});

t.test('tools/call streams progress then the result over SSE; JSON-only clients get one JSON body', async (t) => {
  const world = await startMcpWorld(t);
  const { headers } = await session(world);
  const name = await toolName(world, headers, 'lookup');
  const body = { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name, arguments: { message: 'id: c-5' }, _meta: { progressToken: 'tok' } } };
  const streamed = await world.post(body, headers);
  t.equal(streamed.status, 200);
  t.match(streamed.headers.get('content-type'), /^text\/event-stream/);
  const messages = sseMessages(streamed.text);
  const last = messages.at(-1);
  t.match(last, { jsonrpc: '2.0', id: 'c1', result: { structuredContent: { status: 'completed' } } });
  const progress = messages.slice(0, -1);
  t.ok(progress.length >= 3);
  t.ok(progress.every((m) => m.method === 'notifications/progress' && m.params.progressToken === 'tok'));
  t.same(progress.map((m) => m.params.progress), progress.map((_m, i) => i + 1), 'progress increases by one each time');

  const json = await world.post({ ...body, id: 'c2' }, { ...headers, accept: 'application/json' });
  t.match(json.headers.get('content-type'), /^application\/json/);
  t.match(json.json, { id: 'c2', result: { structuredContent: { status: 'completed' } } });

  const onlySse = await world.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, { ...headers, accept: 'text/event-stream' });
  t.same(sseMessages(onlySse.text), [{ jsonrpc: '2.0', id: 'p', result: {} }], 'a client that only takes SSE gets SSE');
});

t.test('a call waits on the injected clock: past mcpCallWaitMs it answers "running" and the turn carries on', async (t) => {
  const world = await startMcpWorld(t, { mcpCallWaitMs: 30_000 });
  const { headers } = await session(world);
  const name = await toolName(world, headers, 'lookup');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  world.upstream.respond((_request, res) => {
    void held.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"c-6","tier":"free"}');
    });
  });
  const pending = world.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { message: 'id: c-6' } } }, { ...headers, accept: 'application/json' });
  await world.upstream.nextRequest();
  world.server.clock.advance(30_000);
  const answer = await pending;
  t.match(answer.json.result, { structuredContent: { status: 'running' } });
  t.notOk(answer.json.result.isError);
  t.match(answer.json.result.content[0].text, /continues in the background/);
  release();
  await world.settle();
  const view = await call(`${world.server.url}/api/v1/agents/sessions/${answer.json.result.structuredContent.sessionId}`, { headers: bearer(world.key('ada')) });
  t.equal(view.json.latestTurn.status, 'completed', 'the turn finished after the call answered');
});

t.test('notifications/cancelled stops waiting for that request; the turn itself carries on', async (t) => {
  const world = await startMcpWorld(t);
  const { headers } = await session(world);
  const name = await toolName(world, headers, 'lookup');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  world.upstream.respond((_request, res) => {
    void held.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"c-8","tier":"pro"}');
    });
  });
  const json = { ...headers, accept: 'application/json' };
  const pending = world.post({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name, arguments: { message: 'id: c-8' } } }, json);
  await world.upstream.nextRequest();
  const other = await world.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'other' } }, headers);
  t.equal(other.status, 202, 'cancelling an unknown id is harmless');
  t.equal((await world.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'user' } }, headers)).status, 202);
  const answer = await pending;
  t.match(answer.json, { id: 'slow', result: { structuredContent: { status: 'running' } } });
  release();
  await world.settle();
  const view = await call(`${world.server.url}/api/v1/agents/sessions/${answer.json.result.structuredContent.sessionId}`, { headers: bearer(world.key('ada')) });
  t.equal(view.json.latestTurn.status, 'completed');
});

t.test('a closed client stream stops the wait; an idle MCP session expires on the injected clock', async (t) => {
  const world = await startMcpWorld(t, { mcpSessionIdleMs: 60_000 });
  const { headers } = await session(world);
  const name = await toolName(world, headers, 'upgrader');
  const abort = new AbortController();
  world.upstream.respond(() => abort.abort());
  const streamed = call(world.endpoint.href, {
    method: 'POST',
    headers: { ...headers, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { message: UPGRADE, callerCredentials: { integrations: { crm: { token: CANARY } } } } } }),
    signal: abort.signal,
  });
  await t.rejects(streamed, { name: 'AbortError' });
  const bus = world.server.service.services.events;
  // The server learns of the closed socket from the event loop, not from a timer: yield turns until it does.
  for (let turn = 0; turn < 100_000 && bus.stats().subscribers > 0; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  t.equal(bus.stats().subscribers, 0, 'the wait unsubscribed when the client went away');

  world.server.clock.advance(59_999);
  t.equal((await world.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, headers)).status, 200, 'use renews the idle window');
  world.server.clock.advance(60_000);
  t.equal((await world.post({ jsonrpc: '2.0', id: 3, method: 'ping' }, headers)).status, 404, 'idle past the window: initialize again');
});

t.test('the MCP endpoint is in the OpenAPI document', async (t) => {
  const world = await startMcpWorld(t);
  const doc = await call(`${world.server.url}/api/v1/openapi.json`);
  t.ok(doc.json.paths['/api/v1/mcp'].post);
  t.ok(doc.json.paths['/api/v1/mcp'].delete);
});
