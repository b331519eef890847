// A real service with the contract workspace applied, its crm pointed at a recording loopback upstream.
import { applyManifest } from '../../../runtime/manifest/apply.js';
import type { ServiceConfig } from '../../../runtime/config.js';
import type { ManualClock } from '../../../runtime/clock.js';
import { exampleWorkspace } from '../../helpers/contract-example.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { sqlReader } from '../../helpers/sql.js';
import { bearer, call, type Answer } from '../../helpers/http.js';
import { startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from '../../runtime/tools/recording-upstream.js';

/** A canary caller token: it must reach the crm upstream and nowhere else (logs, responses, SSE, the DB). */
export const CANARY = 'caller-canary-5f1d9a7c3e';

/**
 * The contract manifest with additions: `vic` (sales viewer), `exporter` (returns a file), `writer` (ungated write),
 * `notary` (gated write with service identity: policy-routed approvals), and the crm gains `crm.export_contact`.
 */
export function conversationWorkspace(baseUrl: string): any {
  const manifest = exampleWorkspace();
  const crm = manifest.integrations[0];
  crm.baseUrl = baseUrl;
  crm.tools.push({
    name: 'crm.export_contact',
    description: 'Export a contact card',
    readonly: true,
    request: { method: 'GET', path: '/contacts/{id}/export' },
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  });
  const acme = manifest.organizations[0];
  acme.users.push({ ref: 'vic', email: 'vic@acme.test', name: 'Vic Viewer', password: 'vic-password-1', orgRole: 'member', apiKeys: ['vic-key'] });
  acme.domains[0].members.push({ user: 'vic', role: 'viewer' });
  acme.agents.push(
    {
      ref: 'exporter',
      domain: 'sales',
      name: 'Exporter',
      setup: { principles: '', procedure: 'Export with #crm.export_contact.', model: 'builtin:procedure', approvalTools: [] },
      bindings: { crm: 'service' },
      publish: true,
    },
    {
      ref: 'writer',
      domain: 'sales',
      name: 'Writer',
      setup: { principles: '', procedure: 'Change it with #crm.update_contact.', model: 'builtin:procedure', approvalTools: [] },
      bindings: { crm: 'service' },
      publish: true,
    },
    {
      ref: 'notary',
      domain: 'sales',
      name: 'Notary',
      setup: { principles: '', procedure: 'Note it with #crm.update_contact.', model: 'builtin:procedure', approvalTools: ['crm.update_contact'] },
      bindings: { crm: 'service' },
      publish: true,
    },
  );
  return manifest;
}

/** Contacts answer `{ id, tier: 'pro' }`; writes echo their body; exports are a small PDF-typed file. */
export function crmResponder(request: RecordedRequest, res: import('node:http').ServerResponse): void {
  const match = /^\/contacts\/([^/]+)(\/export)?$/.exec(request.pathname);
  if (match && match[2]) {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${match[1]}.pdf"` });
    res.end(Buffer.from('%PDF-1.4 card'));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  if (request.method === 'GET' && match) res.end(JSON.stringify({ id: decodeURIComponent(match[1]!), tier: 'pro' }));
  else res.end(JSON.stringify({ ok: true, received: request.body ? JSON.parse(request.body) : null }));
}

export interface Conversation {
  server: TestServer;
  upstream: RecordingUpstream;
  clock: ManualClock;
  refs: Record<string, string>;
  /** The `sv_` key of a user ref (`ada`, `bob`, `eve`, `vic`, `gina`). */
  key(user: string): string;
  /** `SELECT count(*) AS n` over the service's database, on either engine (portable SQL, `?` placeholders). */
  count(sql: string, ...params: unknown[]): Promise<number>;
  post(path: string, user: string, json: unknown): Promise<Answer>;
  get(path: string, user: string): Promise<Answer>;
  /** Waits until the session's queue has nothing running (no sleeping: the dispatcher says when). */
  settle(sessionId?: string): Promise<void>;
  open(agentRef: string, user: string, json: unknown): Promise<Answer>;
}

export async function startConversation(
  t: { teardown(fn: () => unknown): void },
  options: { config?: Partial<ServiceConfig>; dbPath?: string; clock?: ManualClock; manifest?: (base: string) => any } = {},
): Promise<Conversation> {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(crmResponder);
  const server = await startTestServer(t, { config: options.config, dbPath: options.dbPath, clock: options.clock });
  const manifest = (options.manifest ?? conversationWorkspace)(upstream.baseUrl);
  const { refs } = await applyManifest(server.service.store, manifest, { clock: server.clock, keyRing: server.service.services.keyRing });
  const key = (user: string) => refs[`${user}-key`] ?? user;
  const base = `${server.url}/api/v1`;
  return {
    server,
    upstream,
    clock: server.clock,
    refs,
    key,
    post: (path, user, json) => call(`${base}${path}`, { method: 'POST', headers: bearer(key(user)), json }),
    get: (path, user) => call(`${base}${path}`, { headers: bearer(key(user)) }),
    count: sqlReader(server.service).count,
    async settle(sessionId) {
      // Routes dispatch from setImmediate after their reply is written, and a client in this process can read that
      // reply in the same poll phase: let the check phase run before asking the dispatcher.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await server.service.services.sessions.dispatcher.idle(sessionId);
    },
    open: (agentRef, user, json) => call(`${base}/agents/${refs[agentRef]}/sessions`, { method: 'POST', headers: bearer(key(user)), json }),
  };
}

/** Credentials for the crm integration with the canary token. */
export const crmCredentials = (token = CANARY) => ({ integrations: { crm: { token } } });
