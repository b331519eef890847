// The real server with the partner workspace, a staffed customer, and a valid credential and real ids for every route.
import { Webhook } from 'standardwebhooks';
import { newId } from '../../../runtime/ids.js';
import { bearer, call } from '../../helpers/http.js';
import { startPartner, staffedCustomer, type PartnerEnv } from '../partner/partner-fixture.js';
import { SIGNUP_SECRET, signIn } from '../triggers-admin/trigger-fixture.js';

/** One operation of the served OpenAPI document that takes a request body (any method but GET). */
export interface Operation {
  method: string;
  /** OpenAPI template, `{param}` segments. */
  path: string;
  security: string[];
  /** The documented JSON body's schema, when there is one. */
  schema: Record<string, any> | undefined;
}

export interface FuzzWorld {
  p: PartnerEnv;
  url: string;
  operations: Operation[];
  /** Real ids by the body property or path parameter that names them. */
  ids: Record<string, string[]>;
  /** Values tried for a path parameter: real ids of this workspace (never for DELETE), an unknown UUID, a non-UUID. */
  paramValues(method: string, name: string): string[];
  /** Headers carrying a valid credential for the operation (a fresh console cookie after a logout). */
  credentialFor(operation: Operation, path: string, body: Buffer): Promise<Record<string, string>>;
  /** Call after each request: re-signs in when the request could have ended the console session. */
  after(operation: Operation): Promise<void>;
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

export async function startFuzzWorld(t: { teardown(fn: () => unknown): void }): Promise<FuzzWorld> {
  const p = await startPartner(t);
  const url = p.c.server.url;
  const customer = await staffedCustomer(p, 'fuzz-co');
  await customer.vouch('fuzz-worker', 'operator', true);
  const lease = await p.api('POST', '/worker-token', customer.key, { orgId: customer.orgId, appId: p.refs['northwind-app'], partnerSubject: 'fuzz-worker' });
  if (lease.status !== 200) throw new Error(`worker-token answered ${lease.status}`);
  const opened = await p.c.open('lookup', 'ada', { message: 'Look up c-1' });
  if (opened.status !== 202 && opened.status !== 201) throw new Error(`open answered ${opened.status}: ${opened.text}`);
  let cookie = await signIn(url, 'ada');

  const document = (await call(`${url}/api/v1/openapi.json`)).json;
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      if (!BODY_METHODS.has(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        security: (operation.security ?? []).flatMap((entry: Record<string, unknown>) => Object.keys(entry)),
        schema: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }

  const { refs } = p;
  const real: Record<string, string[]> = {
    orgId: [customer.orgId],
    automationId: [refs.lookup!, refs.enrich!, customer.automation('welcome')],
    id: [refs.lookup!, refs.enrich!],
    sessionId: [opened.json.sessionId],
    articleId: [refs.pricing!, refs.wip!],
    baseId: [refs.playbook!],
    moduleId: [refs['pricing-module']!],
    triggerId: [refs.signup!, refs['new-lead']!],
    domainId: [refs.sales!],
    connectionId: [refs['crm-conn']!],
    appId: [refs['northwind-app']!],
    partnerSubject: ['fuzz-worker'],
    sourceIntegrationId: ['crm'],
  };
  return {
    p,
    url,
    operations,
    // In bodies a triggerId is fired: the API trigger (the event trigger is reached by its path).
    ids: { ...real, triggerId: [refs['new-lead']!] },
    // Real ids twice: most bodies should get past the id lookup to the body.
    paramValues: (method, name) => [...(method === 'DELETE' ? [] : [...(real[name] ?? []), ...(real[name] ?? [])]), newId(), 'not-a-uuid'],
    async credentialFor(operation, path, body) {
      const scheme = operation.security[0];
      if (scheme === 'apiKey' || scheme === 'userToken') return bearer(p.c.key('ada'));
      if (scheme === 'cookie') return { cookie };
      if (scheme === 'partnerKey') return { ...bearer(customer.key), 'x-service-subject': 'fuzz-worker' };
      if (scheme === 'lease') return bearer(lease.json.token);
      if (path.startsWith('/api/v1/events/')) {
        // An inbound event's credential is its Standard Webhooks signature over the exact bytes.
        const id = `msg_${newId()}`;
        const at = new Date(p.clock.now());
        const signature = new Webhook(SIGNUP_SECRET).sign(id, at, body.toString('utf8'));
        return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
      }
      return {};
    },
    async after(operation) {
      if (operation.path.endsWith('/logout')) cookie = await signIn(url, 'ada');
    },
  };
}
