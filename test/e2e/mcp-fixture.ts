// A real service with the contract workspace (crm on a loopback upstream) and official MCP SDK clients against it.
import type { ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { applyManifest } from '../../runtime/manifest/apply.js';
import type { ServiceConfig } from '../../runtime/config.js';
import { exampleWorkspace } from '../helpers/contract-example.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, type Answer } from '../helpers/http.js';
import { startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from '../runtime/tools/recording-upstream.js';

export const ALLOWED_ORIGIN = 'https://assistant.example.test';
/** A caller token that must reach the crm upstream and nowhere else. */
export const CANARY = 'mcp-caller-canary-7c41e2';
export const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

export type User = 'ada' | 'bob' | 'eve' | 'gina';

/** Contacts answer `{ id, tier: 'pro' }`; writes echo their body. */
export function crmResponder(request: RecordedRequest, res: ServerResponse): void {
  const match = /^\/contacts\/([^/]+)$/.exec(request.pathname);
  res.writeHead(200, { 'content-type': 'application/json' });
  if (request.method === 'GET' && match) res.end(JSON.stringify({ id: decodeURIComponent(match[1]!), tier: 'pro' }));
  else res.end(JSON.stringify({ ok: true, received: request.body ? JSON.parse(request.body) : null }));
}

export interface McpWorld {
  server: TestServer;
  upstream: RecordingUpstream;
  refs: Record<string, string>;
  /** http://127.0.0.1:<port>/api/v1/mcp */
  endpoint: URL;
  key(user: User): string;
  /** An SDK client, connected (initialize + initialized) unless `connect: false`; closed at teardown. */
  client(user: User | { secret: string }, options?: { headers?: Record<string, string>; connect?: boolean }): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  /** A raw POST of a JSON body (or text) to the endpoint. */
  post(body: unknown, headers: Record<string, string>): Promise<Answer>;
  /** Waits until every session queue has nothing running (the dispatcher says when; no sleeping). */
  settle(): Promise<void>;
}

export async function startMcpWorld(t: { teardown(fn: () => unknown): void }, config: Partial<ServiceConfig> = {}): Promise<McpWorld> {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(crmResponder);
  const server = await startTestServer(t, { config: { mcpAllowedOrigins: [ALLOWED_ORIGIN], ...config } });
  const manifest = exampleWorkspace();
  manifest.integrations[0].baseUrl = upstream.baseUrl;
  const { refs } = await applyManifest(server.service.store, manifest, { clock: server.clock, keyRing: server.service.services.keyRing });
  const endpoint = new URL(`${server.url}/api/v1/mcp`);
  const key = (user: User) => refs[`${user}-key`]!;

  return {
    server,
    upstream,
    refs,
    endpoint,
    key,
    async client(user, options = {}) {
      const secret = typeof user === 'string' ? key(user) : user.secret;
      const transport = new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { authorization: `Bearer ${secret}`, ...options.headers } },
      });
      const client = new Client({ name: 'switchyard-e2e', version: '1.0.0' });
      t.teardown(() => client.close());
      if (options.connect !== false) await client.connect(transport);
      return { client, transport };
    },
    post(body, headers) {
      const init = typeof body === 'string' ? { body } : { json: body };
      return call(endpoint.href, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, ...init });
    },
    settle: () => server.service.services.sessions.dispatcher.idle(),
  };
}

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages(text: string): any[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n'))
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}
