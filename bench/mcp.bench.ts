// MCP tools/call round trips per second beside the REST open-session path, on one switchyard server in one run.
/*
 * `npm run bench -- --only mcp`, or standalone `node --import tsx bench/mcp.bench.ts [--quick]`. The server is
 * bench/servers/switchyard.ts (demo manifest: `demo-agent`, builtin:procedure with #knowledge.search, no upstream).
 * The two rows measure different promises on purpose: REST answers 202 once the session and its first turn are
 * durable (the turn runs after the answer); an MCP tools/call answers when the turn has finished, with its answer.
 * Each tools/call opens a new durable session, exactly like each REST open. The MCP row's ratio is to the REST row.
 */
import { pathToFileURL } from 'node:url';
import { runBench } from './runner.js';
import type { BenchContext, CustomScenario, LoadRequest, Row, RunningServer } from './scenario.js';

const PROTOCOL = '2025-06-18';

interface McpTarget {
  sessionId: string;
  toolName: string;
  automationId: string;
}

async function rpc(server: RunningServer, headers: Record<string, string>, body: unknown): Promise<{ headers: Headers; json: any }> {
  const response = await fetch(`${server.url}/api/v1/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json: any = await response.json();
  if (response.status !== 200 || json.error) throw new Error(`MCP ${String(body && (body as { method?: string }).method)} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return { headers: response.headers, json };
}

/** initialize + tools/list over plain HTTP: the session id and the demo agent's tool. */
async function prepareMcp(server: RunningServer, key: string): Promise<McpTarget> {
  const auth = { authorization: `Bearer ${key}` };
  const init = await rpc(server, auth, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'switchyard-bench', version: '1' } },
  });
  const sessionId = init.headers.get('mcp-session-id');
  if (!sessionId) throw new Error('initialize returned no Mcp-Session-Id');
  const listed = await rpc(server, { ...auth, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL }, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const tool = listed.json.result.tools[0];
  if (!tool) throw new Error('tools/list is empty for the demo key');
  return { sessionId, toolName: tool.name, automationId: tool._meta['io.switchyard/automationId'] };
}

const MESSAGE = 'What are the pricing tiers?';

export function mcpCallRequest(key: string, target: McpTarget): LoadRequest {
  return {
    method: 'POST',
    path: '/api/v1/mcp',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      // JSON, not SSE: one body per round trip, which is what autocannon counts.
      accept: 'application/json',
      'mcp-session-id': target.sessionId,
      'mcp-protocol-version': PROTOCOL,
    },
    // One JSON-RPC id for every request: autocannon's idReplacement inside a body keeps the template's
    // Content-Length, so the server would wait for bytes that never come. Ids only key cancellation, never sent here.
    body: JSON.stringify({ jsonrpc: '2.0', id: 'bench', method: 'tools/call', params: { name: target.toolName, arguments: { message: MESSAGE } } }),
    expectedStatus: 200,
  };
}

export function restOpenRequest(key: string, automationId: string): LoadRequest {
  return {
    method: 'POST',
    path: `/api/v1/agents/${automationId}/sessions`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: MESSAGE }),
    expectedStatus: 202,
    boundedStatuses: [429],
  };
}

async function run(ctx: BenchContext): Promise<Row[]> {
  const server = await ctx.startServer('switchyard');
  try {
    const key = server.ready.apiKey;
    if (!key) throw new Error('the switchyard bench server reported no apiKey');
    const target = await prepareMcp(server, key);
    // MCP first: REST opens leave their turns running after the 202s, which would slow whatever is loaded next.
    const mcp = await ctx.load('agent turn: MCP tools/call', server, mcpCallRequest(key, target));
    const rest = await ctx.load('agent turn: REST open session', server, restOpenRequest(key, target.automationId));
    return [
      { ...rest, ratioToBaseline: 1, note: [rest.note, '202 when durable; the turn runs after'].filter(Boolean).join('; ') },
      {
        ...mcp,
        ratioToBaseline: rest.reqPerSec > 0 ? mcp.reqPerSec / rest.reqPerSec : null,
        note: [mcp.note, 'answers when the turn finished (new session each call)'].filter(Boolean).join('; '),
      },
    ];
  } finally {
    await ctx.stopServer(server);
  }
}

export const mcpScenario: CustomScenario = { kind: 'custom', name: 'mcp tools/call vs REST open', run };

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runBench([mcpScenario], process.argv.slice(2));
}
