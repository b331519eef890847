// Owns webhook endpoint registration (console): register (secret shown once), list, delete, and the delivery log.
/*
 * Endpoints belong to the organization and hear about work in all its domains, so managing them takes organization
 * owner or admin authority (403 otherwise); another organization's endpoint id is the uniform 404.
 */
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../storage/repos/webhooks.repo.js';
import type { Store } from '../../storage/store.js';
import type { Clock } from '../clock.js';
import { toIso } from '../clock.js';
import { forbidden, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import type { KeyRing } from '../vault/index.js';
import { sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import { WEBHOOK_EVENT_TYPES } from './run-payload.js';
import { mintSigningSecret } from './standard-webhooks.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import { checkWebhookUrl } from './webhook-url.js';
import type { ResolveAll } from '../tools/network-guard.js';
import { decodePosition, encodePosition } from '../paging/cursor.js';

export const DELIVERIES_PAGE_DEFAULT = 20;
export const DELIVERIES_PAGE_MAX = 100;

export interface WebhookCaller {
  readonly userId: string;
  readonly orgId: string;
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  createdBy: string | null;
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  eventType: string;
  runId: string | null;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  /** The signed body, as sent. */
  payload: unknown;
  attemptLog: Array<{ attempt: number; at: string; statusCode: number | null; error: string | null; durationMs: number }>;
}

export interface WebhookEndpoints {
  register(caller: WebhookCaller, body: { url: string; events?: string[] }): Promise<{ webhook: WebhookView; secret: string }>;
  list(caller: WebhookCaller): { webhooks: WebhookView[] };
  remove(caller: WebhookCaller, id: string): Promise<void>;
  deliveries(caller: WebhookCaller, id: string, options: { limit?: number; cursor?: string }): { deliveries: DeliveryView[]; nextCursor: string | null };
}

export interface WebhookEndpointsDeps {
  store: Store;
  clock: Clock;
  keyRing: KeyRing;
  deliveries: WebhookDeliveries;
  allowPrivateNetworks: boolean;
  resolveAll?: ResolveAll;
}

function view(row: WebhookEndpointRow): WebhookView {
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as string[], active: row.active === 1, createdBy: row.created_by, createdAt: toIso(row.created_at) };
}

function deliveryView(row: WebhookDeliveryRow, attempts: readonly WebhookAttemptRow[]): DeliveryView {
  return {
    id: row.id,
    eventType: row.event_type,
    runId: row.run_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at !== null ? toIso(row.next_attempt_at) : null,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    payload: JSON.parse(row.payload) as unknown,
    attemptLog: attempts.map((a) => ({ attempt: a.attempt, at: toIso(a.attempted_at), statusCode: a.status_code, error: a.error, durationMs: a.duration_ms })),
  };
}


export function createWebhookEndpoints(deps: WebhookEndpointsDeps): WebhookEndpoints {
  const { store, clock, keyRing } = deps;
  const { repos } = store;

  function requireOrgAdmin(caller: WebhookCaller): void {
    const role = repos.tenancy.orgRole(caller.orgId, caller.userId);
    if (role !== 'owner' && role !== 'admin') throw forbidden('Managing webhooks needs organization owner or admin authority.');
  }

  function endpointOf(caller: WebhookCaller, id: string): WebhookEndpointRow {
    const row = isUuid(id) ? repos.webhooks.endpoint(id) : undefined;
    if (row === undefined || row.org_id !== caller.orgId) throw notFound();
    requireOrgAdmin(caller);
    return row;
  }

  return {
    async register(caller, body) {
      requireOrgAdmin(caller);
      const url = await checkWebhookUrl(body.url, { allowPrivateNetworks: deps.allowPrivateNetworks, resolveAll: deps.resolveAll });
      const events = [...new Set(body.events ?? WEBHOOK_EVENT_TYPES)];
      const id = newId();
      const secret = mintSigningSecret();
      const row: WebhookEndpointRow = {
        id,
        org_id: caller.orgId,
        url: url.href,
        secret_sealed: sealSecret(keyRing, secret, sealedSecretAad.webhookEndpoint(caller.orgId, id)),
        events: JSON.stringify(events),
        active: 1,
        created_by: caller.userId,
        created_at: clock.now(),
      };
      await store.writer.submit(() => repos.webhooks.insertEndpoint(row));
      return { webhook: view(row), secret };
    },
    list(caller) {
      requireOrgAdmin(caller);
      return { webhooks: repos.webhooks.endpointsOfOrganization(caller.orgId).map(view) };
    },
    async remove(caller, id) {
      const row = endpointOf(caller, id);
      await store.writer.submit(() => {
        deps.deliveries.cancelPending(row.id)();
        repos.webhooks.deleteEndpoint(row.id);
      });
    },
    deliveries(caller, id, options) {
      const row = endpointOf(caller, id);
      const limit = options.limit ?? DELIVERIES_PAGE_DEFAULT;
      const before = options.cursor ? decodePosition(options.cursor) : null;
      const rows = repos.webhooks.deliveriesPage(row.id, before, limit + 1);
      const page = rows.slice(0, limit);
      const byDelivery = new Map<string, WebhookAttemptRow[]>();
      for (const attempt of repos.webhooks.attemptsOf(page.map((d) => d.id))) {
        const list = byDelivery.get(attempt.delivery_id) ?? [];
        list.push(attempt);
        byDelivery.set(attempt.delivery_id, list);
      }
      const last = page[page.length - 1];
      return {
        deliveries: page.map((d) => deliveryView(d, byDelivery.get(d.id) ?? [])),
        nextCursor: rows.length > limit && last !== undefined ? encodePosition({ createdAt: last.created_at, id: last.id }) : null,
      };
    },
  };
}
