// MCP endpoint end to end with the official SDK client: initialize, ping, tools/list visibility, tools/call, security.
import t from 'tap';
import { bearer, call } from '../helpers/http.js';
import { ALLOWED_ORIGIN, CANARY, startMcpWorld, UPGRADE } from './mcp-fixture.js';
import { sqlReader } from '../helpers/sql.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

t.test('initialize negotiates 2025-06-18, issues a random session id, and ping answers', async (t) => {
  const world = await startMcpWorld(t);
  const { client, transport } = await world.client('ada');
  t.equal(transport.protocolVersion, '2025-06-18', 'the SDK asks for its newest revision; we offer the one we speak');
  t.match(transport.sessionId, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url: visible ASCII only');
  t.match(client.getServerVersion(), { name: 'switchyard' });
  t.same(client.getServerCapabilities(), { tools: { listChanged: false } });
  t.match(client.getInstructions(), /sessionId/);
  t.same(await client.ping(), {});

  const other = await world.client('ada');
  t.not(other.transport.sessionId, transport.sessionId, 'each initialize gets its own session');
});

t.test('tools/list: exactly the published agents the key owner may run (REST visibility rules)', async (t) => {
  const world = await startMcpWorld(t);
  const ada = (await world.client('ada')).client;
  const { tools } = await ada.listTools();
  const ids = tools.map((tool) => tool._meta?.['io.switchyard/automationId']);
  t.same(ids.sort(), [world.refs.lookup, world.refs.upgrader].sort(), 'drafty (unpublished), enrich (a flow) and globex agents are absent');
  const lookup = tools.find((tool) => tool._meta?.['io.switchyard/automationId'] === world.refs.lookup)!;
  t.match(lookup.name, /^contact_lookup_[0-9a-f]{12}$/);
  t.ok(lookup.name.length <= 64);
  t.equal(lookup.title, 'Contact lookup');
  t.equal(lookup.description, 'Finds a contact and summarises it');
  t.same(lookup.inputSchema.required, ['message']);
  const props = lookup.inputSchema.properties as Record<string, any>;
  t.match(props.message, { type: 'string', minLength: 1, maxLength: 8000 });
  t.match(props.sessionId, { type: 'string', format: 'uuid' });
  t.equal(props.callerCredentials.additionalProperties, false, 'the strict vault schema');
  t.same(props.callerCredentials.required, ['integrations']);
  t.match(lookup.outputSchema, { type: 'object', required: ['sessionId', 'executionId', 'status'] });
  const upgrader = tools.find((tool) => tool._meta?.['io.switchyard/automationId'] === world.refs.upgrader)!;
  t.match(upgrader.description, /Tier upgrader/, 'an agent without a description gets one naming it');

  const bob = (await world.client('bob')).client;
  t.equal((await bob.listTools()).tools.length, 2, 'an Operator of the domain sees the same two');
  const eve = (await world.client('eve')).client;
  t.same((await eve.listTools()).tools, [], 'an organization Admin outside the domain runs nothing (no bypass)');
  const gina = (await world.client('gina')).client;
  const globex = (await gina.listTools()).tools;
  t.same(globex.map((tool) => tool._meta?.['io.switchyard/automationId']), [world.refs['globex-agent']], "another organization's key sees only its own");

  const again = await ada.listTools();
  t.same(again.tools.map((tool) => tool.name), tools.map((tool) => tool.name), 'names are stable across lists');
});

t.test('tools/list pages with cursors; a foreign cursor is -32602', async (t) => {
  const world = await startMcpWorld(t, { mcpToolsPageSize: 1 });
  const { client } = await world.client('ada');
  const first = await client.listTools();
  t.equal(first.tools.length, 1);
  t.type(first.nextCursor, 'string');
  const second = await client.listTools({ cursor: first.nextCursor });
  t.equal(second.tools.length, 1);
  t.equal(second.nextCursor, undefined, 'the last page has no cursor');
  t.not(second.tools[0]!.name, first.tools[0]!.name);
  await t.rejects(client.listTools({ cursor: 'not-one-of-ours' }), { name: 'McpError', code: -32602 });
});

t.test('a disabled entitlement hides the agent from tools/list and from tools/call', async (t) => {
  const world = await startMcpWorld(t);
  const { client } = await world.client('ada');
  const name = (await client.listTools()).tools.find((tool) => tool._meta?.['io.switchyard/automationId'] === world.refs.lookup)!.name;
  const { store, clock } = world.server.service.services;
  await store.writer.submit(async (tx) =>
    (await tx.repos.entitlements.set({ orgId: world.refs.acme!, automationId: world.refs.lookup!, enabled: false, updatedAt: clock.now() })),
  );
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.notOk(names.includes(name));
  await t.rejects(client.callTool({ name, arguments: { message: 'id: c-1' } }), { name: 'McpError', code: -32602 });
  t.equal(world.upstream.received.length, 0, 'nothing ran');
});

t.test('tools/call runs one turn as a durable session, with progress, and returns the answer', async (t) => {
  const world = await startMcpWorld(t);
  const { client } = await world.client('ada');
  const lookup = (await client.listTools()).tools.find((tool) => tool._meta?.['io.switchyard/automationId'] === world.refs.lookup)!;
  const progress: string[] = [];
  const result: any = await client.callTool({ name: lookup.name, arguments: { message: '{"id": "c-1"}' } }, undefined, {
    onprogress: (p) => progress.push(p.message ?? ''),
  });
  t.notOk(result.isError);
  t.match(result.content[0].text, /crm\.get_contact: \{"id":"c-1","tier":"pro"\}/, 'the builtin:procedure answer built from the loopback tool');
  t.match(result.structuredContent, { sessionId: UUID, executionId: UUID, status: 'completed' });
  t.same(JSON.parse(result.content[1].text), result.structuredContent, 'the structured facts also as a JSON text block');
  t.equal(world.upstream.received.length, 1);
  t.equal(world.upstream.received[0]!.pathname, '/contacts/c-1');
  t.ok(progress.includes('Turn started'), 'progress notifications flow while the turn runs');
  t.ok(progress.includes('Calling crm.get_contact'));
  t.ok(progress.includes('crm.get_contact succeeded'));

  // An ordinary session: the REST routes show it, and its origin is recorded for the audit trail.
  const { sessionId, executionId } = result.structuredContent;
  const view = await call(`${world.server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(world.key('ada')) });
  t.equal(view.status, 200);
  t.equal(view.json.latestTurn.executionId, executionId);
  t.equal(view.json.latestTurn.status, 'completed');
  t.match(view.json.messages, [{ role: 'user', text: '{"id": "c-1"}', author: { isYou: true } }, { role: 'assistant' }]);
  const row = (await sqlReader(world.server.service).get('SELECT origin, created_by, visibility FROM sessions WHERE id = ?', sessionId)) as any;
  t.same(row, { origin: 'mcp', created_by: world.refs.ada, visibility: 'personal' }, 'an assistant\'s chat is personal to the key owner');
  const bobs = await call(`${world.server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(world.key('bob')) });
  t.equal(bobs.status, 404, 'a domain Operator cannot see it');

  // Continue the conversation: the same session, a new turn.
  const next: any = await client.callTool({ name: lookup.name, arguments: { message: 'id: c-2', sessionId } });
  t.equal(next.structuredContent.sessionId, sessionId);
  t.not(next.structuredContent.executionId, executionId);
  t.match(next.content[0].text, /"id":"c-2"/);
  const reread = await call(`${world.server.url}/api/v1/agents/sessions/${sessionId}`, { headers: bearer(world.key('ada')) });
  t.equal(reread.json.messages.length, 4, 'two user messages, two answers');
});

t.test('a call that reaches an approval gate returns the approvalId as a normal result', async (t) => {
  const world = await startMcpWorld(t);
  const { client } = await world.client('ada');
  const upgrader = (await client.listTools()).tools.find((tool) => tool._meta?.['io.switchyard/automationId'] === world.refs.upgrader)!;

  const refused: any = await client.callTool({ name: upgrader.name, arguments: { message: UPGRADE } });
  t.equal(refused.isError, true, 'caller_required without credentials is a tool error, not a transport error');
  t.match(refused.content[0].text, /CALLER_CREDENTIALS_REQUIRED/);

  const result: any = await client.callTool({
    name: upgrader.name,
    arguments: { message: UPGRADE, callerCredentials: { integrations: { crm: { token: CANARY } } } },
  });
  t.notOk(result.isError);
  t.match(result.structuredContent, { status: 'suspended', approvalId: UUID, pendingTool: 'crm.update_contact', sessionId: UUID });
  t.ok(result.content[0].text.includes(result.structuredContent.approvalId));
  t.notOk(JSON.stringify(result).includes(CANARY), 'the caller credential never comes back');
  t.equal(world.upstream.received.length, 1, 'the read ran; the write waits');
  t.equal(world.upstream.received[0]!.headers.authorization, `Bearer ${CANARY}`);

  // A message sent meanwhile queues behind the parked turn: the call answers at once instead of hanging.
  const { sessionId, approvalId } = result.structuredContent;
  const queued: any = await client.callTool({ name: upgrader.name, arguments: { message: 'id: c-9', sessionId, callerCredentials: { integrations: { crm: { token: CANARY } } } } });
  t.equal(queued.structuredContent.status, 'queued');
  t.match(queued.content[0].text, new RegExp(`waits for approval \\(approvalId ${approvalId}\\)`));

  // The approval is an ordinary REST approval on an ordinary session.
  const approved = await call(`${world.server.url}/api/v1/agents/sessions/${sessionId}/turn-approval`, {
    method: 'POST',
    headers: bearer(world.key('ada')),
    json: { decision: 'approved', approvalId },
  });
  t.equal(approved.status, 200);
  await world.settle();
  const patch = world.upstream.received.find((r) => r.method === 'PATCH');
  t.ok(patch, 'the gated write ran after approval');
  t.equal(patch!.headers.authorization, `Bearer ${CANARY}`);
});

t.test('security: a foreign Origin is refused, an allowed one passes, a bad key is the uniform 404', async (t) => {
  const world = await startMcpWorld(t);
  const foreign = await world.client('ada', { headers: { origin: 'https://evil.example' }, connect: false });
  await t.rejects(foreign.client.connect(foreign.transport), { code: 403, message: /^Streamable HTTP error/ });

  const allowed = await world.client('ada', { headers: { origin: ALLOWED_ORIGIN } });
  t.equal((await allowed.client.listTools()).tools.length, 2);

  const invalid = await world.client({ secret: 'sv_not_a_real_key' }, { connect: false });
  await t.rejects(invalid.client.connect(invalid.transport), { code: 404, message: /^Streamable HTTP error/ });
  t.match(world.refs['northwind-key'], /^svp_/);
  const partnerKey = await world.client({ secret: world.refs['northwind-key']! }, { connect: false });
  await t.rejects(partnerKey.client.connect(partnerKey.transport), { code: 404, message: /^Streamable HTTP error/ });
});

t.test('DELETE ends the session; another key cannot use a session id', async (t) => {
  const world = await startMcpWorld(t);
  const { transport } = await world.client('ada');
  const sessionId = transport.sessionId!;
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  const hijack = await world.post(ping, { ...headers, ...bearer(world.key('gina')) });
  t.equal(hijack.status, 404, "a session is bound to the key that initialized it");
  t.equal((await world.post(ping, { ...headers, ...bearer(world.key('ada')) })).status, 200);

  await transport.terminateSession();
  const after = await world.post(ping, { ...headers, ...bearer(world.key('ada')) });
  t.equal(after.status, 404, 'an ended session is 404: the client must initialize again');
  t.same(after.json, { error: { code: 'NOT_FOUND', message: 'Not found.' } });
});
