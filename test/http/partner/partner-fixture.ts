// A real service with the contract workspace (plus partner additions) applied, and helpers to call /api/partner/v1.
import type { ManualClock } from '../../../runtime/clock.js';
import { bearer, call, type Answer } from '../../helpers/http.js';
import { conversationWorkspace, startConversation, type Conversation } from '../sessions/conversation-fixture.js';

export const PARTNER_BASE = '/api/partner/v1';

/**
 * The contract manifest, with: a second `svp_` key on northwind, a gated template agent `approver-agent`
 * (caller-required crm, crm.update_contact needs approval), and a second partner `southwind` with its own customer template.
 */
export function partnerWorkspace(baseUrl: string): any {
  const manifest = conversationWorkspace(baseUrl);
  const northwind = manifest.partners[0];
  northwind.keys.push('northwind-key-2');
  northwind.templates[0].agents.push({
    ref: 'approver-agent',
    name: 'Tier upgrader',
    setup: {
      principles: '',
      procedure: 'Read the contact with #crm.get_contact, then change it with #crm.update_contact.',
      model: 'builtin:procedure',
      approvalTools: ['crm.update_contact'],
    },
    bindings: { crm: 'caller_required' },
    publish: true,
  });
  manifest.partners.push({
    ref: 'southwind',
    name: 'Southwind Platform',
    keys: ['southwind-key'],
    apps: [{ ref: 'southwind-app', name: 'Southwind embedded' }],
    provisioning: { enabled: true, quota: 5, template: 'south-starter' },
    templates: [{ ref: 'south-starter', agents: [] }],
  });
  return manifest;
}

export interface ProvisionBody {
  clientName?: unknown;
  clientSegment?: unknown;
  directLoginDisabled?: unknown;
  ownerEmail?: unknown;
  ownerName?: unknown;
  domainName?: unknown;
  [extra: string]: unknown;
}

export const customerBody = (segment: string, extra: Partial<ProvisionBody> = {}): ProvisionBody => ({
  clientName: `Customer ${segment}`,
  clientSegment: segment,
  ownerEmail: `owner@${segment}.example`,
  ownerName: 'Olive Owner',
  ...extra,
});

export interface PartnerEnv {
  c: Conversation;
  clock: ManualClock;
  refs: Record<string, string>;
  /** POST /organizations with the given Idempotency-Key and key secret (default northwind-key). */
  provision(key: string | null, body: unknown, options?: { secret?: string; headers?: Record<string, string> }): Promise<Answer>;
  /** A partner API call with an `svp_`/`svt_` secret. */
  api(method: string, path: string, secret: string | null, json?: unknown, headers?: Record<string, string>): Promise<Answer>;
  count(table: string, where?: string, ...args: unknown[]): Promise<number>;
  /** Delivers every due timer (claim expiry, leases) after the clock moved. */
  drainTimers(): Promise<number>;
}

export async function startPartner(
  t: { teardown(fn: () => unknown): void },
  options: { manifest?: (baseUrl: string) => any; clock?: ManualClock } = {},
): Promise<PartnerEnv> {
  const c = await startConversation(t, { manifest: options.manifest ?? partnerWorkspace, clock: options.clock });
  const url = `${c.server.url}${PARTNER_BASE}`;
  const api: PartnerEnv['api'] = (method, path, secret, json, headers = {}) =>
    call(`${url}${path}`, { method, headers: { ...(secret === null ? {} : bearer(secret)), ...headers }, ...(json === undefined ? {} : { json }) });
  return {
    c,
    clock: c.clock,
    refs: c.refs,
    provision(key, body, opts = {}) {
      const headers: Record<string, string> = { ...(key === null ? {} : { 'idempotency-key': key }), ...opts.headers };
      return api('POST', '/organizations', opts.secret ?? c.refs['northwind-key']!, body, headers);
    },
    api,
    count: (table, where = '1 = 1', ...args) => c.count(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, ...args),
    drainTimers: () => c.server.service.services.scheduler.drain(),
  };
}

/** A provisioned customer of northwind, with a helper to vouch workers into its onboarding domain. */
export async function staffedCustomer(p: PartnerEnv, segment: string) {
  const provisioned = await p.provision(`order-${segment}`, customerBody(segment));
  if (provisioned.status !== 202) throw new Error(`provisioning answered ${provisioned.status}: ${provisioned.text}`);
  const { organization, domain, release } = provisioned.json;
  const key = p.refs['northwind-key']!;
  const vouch = async (partnerSubject: string, role: string, approver = false) => {
    const answer = await p.api('POST', `/organizations/${organization.id}/workers`, key, { partnerSubject, domainRoles: [{ domainId: domain.id, role, approver }] });
    if (answer.status !== 201) throw new Error(`vouch answered ${answer.status}: ${answer.text}`);
    return answer.json.worker as { userId: string; mappingId: string };
  };
  const automation = (ref: string): string => release.automations.find((a: any) => a.ref === ref).automationId;
  return { orgId: organization.id as string, domainId: domain.id as string, key, vouch, automation };
}
