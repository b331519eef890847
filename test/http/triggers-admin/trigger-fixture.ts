// A real service with the trigger-admin workspace applied (crm at a loopback upstream), console sign-in and helpers.
import { fireWorkspace } from '../../helpers/fire-workspace.js';
import { call, type Answer } from '../../helpers/http.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startRecordingUpstream, type RecordingUpstream } from '../../runtime/tools/recording-upstream.js';
import { crmResponder } from '../sessions/conversation-fixture.js';
import type { ManualClock } from '../../../runtime/clock.js';
import type { ServiceConfig } from '../../../runtime/config.js';
import type { KeyRing } from '../../../runtime/vault/index.js';

export const SIGNUP_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/**
 * The fire workspace plus what event-trigger creation checks need: crm gains an unsigned `contact.deleted` event;
 * a `notes` integration with no events; Acme gains a `support` domain, an unconnected crm connection, a crm
 * connection of `support`, a notes connection, and `ed` (sales editor); Globex gets its own crm connection.
 * The contract's `signup` event trigger also subscribes `upgrader` (caller-required crm).
 */
export function triggerWorkspace(crmBaseUrl: string): any {
  const manifest = fireWorkspace({ crmBaseUrl });
  manifest.integrations[0].events.push({ type: 'contact.deleted', payloadPaths: ['contact.id'] });
  manifest.integrations.push({ id: 'notes', name: 'Notes', description: 'Plain notes', baseUrl: crmBaseUrl, auth: { token: { header: 'Authorization', scheme: 'Bearer' } }, tools: [] });
  const acme = manifest.organizations[0];
  acme.users.push({ ref: 'ed', email: 'ed@acme.test', name: 'Ed Editor', password: 'ed-password-1', orgRole: 'member', apiKeys: [] });
  acme.domains[0].members.push({ user: 'ed', role: 'editor' });
  acme.domains.push({ ref: 'support', name: 'Support', members: [{ user: 'ada', role: 'owner' }] });
  acme.agents.push({
    ref: 'helper',
    domain: 'support',
    name: 'Support helper',
    setup: { principles: '', procedure: 'Answer briefly.', model: 'builtin:procedure', approvalTools: [] },
    publish: true,
  });
  acme.connections.push(
    { ref: 'crm-unconnected', integration: 'crm', domain: 'sales' },
    { ref: 'crm-support', integration: 'crm', domain: 'support', secret: { token: 'support-token' } },
    { ref: 'notes-conn', integration: 'notes', domain: 'sales', secret: { token: 'notes-token' } },
  );
  const signup = acme.triggers.find((t: any) => t.ref === 'signup');
  signup.subscribers = ['enrich', 'upgrader'];
  const globex = manifest.organizations[1];
  globex.connections = [{ ref: 'globex-crm', integration: 'crm', domain: 'ops', secret: { token: 'globex-token' } }];
  return manifest;
}

export interface TriggerServer {
  server: TestServer;
  clock: ManualClock;
  upstream: RecordingUpstream;
  refs: Record<string, string>;
  /** Console cookie of a workspace user (by ref). */
  cookie(user: string): Promise<string>;
  create(user: string, json: unknown): Promise<Answer>;
  /** Every session queue idle and every due timer delivered. */
  settle(): Promise<void>;
}

const PASSWORDS: Record<string, [string, string]> = {
  ada: ['ada@acme.test', 'ada-password-1'],
  bob: ['bob@acme.test', 'bob-password-1'],
  eve: ['eve@acme.test', 'eve-password-1'],
  ed: ['ed@acme.test', 'ed-password-1'],
  vic: ['vic@acme.test', 'vic-password-1'],
  gina: ['gina@globex.test', 'gina-password-1'],
};

export async function signIn(url: string, user: string): Promise<string> {
  const [email, password] = PASSWORDS[user]!;
  const answer = await call(`${url}/api/v1/console/login`, { method: 'POST', json: { email, password } });
  const cookie = answer.headers.get('set-cookie');
  if (answer.status !== 200 || !cookie) throw new Error(`sign-in failed for ${user}: ${answer.status}`);
  return cookie.split(';')[0]!;
}

export async function startTriggerServer(
  t: { teardown(fn: () => unknown): void },
  options: { config?: Partial<ServiceConfig>; dbPath?: string; clock?: ManualClock; keyRing?: KeyRing; tweak?: (manifest: any) => void } = {},
): Promise<TriggerServer> {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond(crmResponder);
  const { tweak: _tweak, ...serverOptions } = options;
  const server = await startTestServer(t, serverOptions);
  const manifest = triggerWorkspace(upstream.baseUrl);
  options.tweak?.(manifest);
  const { refs } = await server.service.applyManifest(manifest);
  // Console sessions last 12 hours of the injected clock: sign in again once a test has moved it along.
  const cookies = new Map<string, { value: string; at: number }>();
  const cookie = async (user: string) => {
    const cached = cookies.get(user);
    if (cached !== undefined && server.clock.now() - cached.at < 3_600_000) return cached.value;
    const value = await signIn(server.url, user);
    cookies.set(user, { value, at: server.clock.now() });
    return value;
  };
  const services = server.service.services;
  return {
    server,
    clock: server.clock,
    upstream,
    refs,
    cookie,
    create: async (user, json) => call(`${server.url}/api/v1/triggers`, { method: 'POST', headers: { cookie: await cookie(user) }, json }),
    async settle() {
      for (let i = 0; i < 5; i++) {
        await services.sessions.dispatcher.idle();
        await services.runSettlement.idle();
        await services.scheduler.drain();
      }
    },
  };
}
