// Owns webhook endpoint registration (console): register (secret shown once), list, delete, and the delivery log.
/*
 * Endpoints belong to the organization and hear about work in all its domains, so managing them takes organization
 * owner or admin authority (403 otherwise); another organization's endpoint id is the uniform 404.
 */
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../storage/records/webhooks.js';
import type { Storage } from '../../storage/port/storage.js';
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
import { decodePosition } from '../paging/cursor.js';
import { creationCursor, probedPage } from '../paging/keyset-page.js';

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
  list(caller: WebhookCaller): Promise<{ webhooks: WebhookView[] }>;
  remove(caller: WebhookCaller, id: string): Promise<void>;
  deliveries(caller: WebhookCaller, id: string, options: { limit?: number; cursor?: string }): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }>;
}

export interface WebhookEndpointsDeps {
  store: Storage;
  clock: Clock;
  keyRing: KeyRing;
  deliveries: WebhookDeliveries;
  allowPrivateNetworks: boolean;
  resolveAll?: ResolveAll;
}

function view(endpoint: WebhookEndpoint): WebhookView {
  return { id: endpoint.id, url: endpoint.url, events: [...endpoint.events], active: endpoint.active, createdBy: endpoint.createdBy, createdAt: toIso(endpoint.createdAt) };
}

function deliveryView(delivery: WebhookDelivery, attempts: readonly WebhookAttempt[]): DeliveryView {
  return {
    id: delivery.id,
    eventType: delivery.eventType,
    runId: delivery.runId,
    status: delivery.status,
    attempts: delivery.attempts,
    nextAttemptAt: delivery.status === 'pending' && delivery.nextAttemptAt !== null ? toIso(delivery.nextAttemptAt) : null,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: toIso(delivery.createdAt),
    updatedAt: toIso(delivery.updatedAt),
    payload: JSON.parse(delivery.payload) as unknown,
    attemptLog: attempts.map((a) => ({ attempt: a.attempt, at: toIso(a.attemptedAt), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
  };
}


export function createWebhookEndpoints(deps: WebhookEndpointsDeps): WebhookEndpoints {
  const { store, clock, keyRing } = deps;
  const { repos } = store;

  async function requireOrgAdmin(caller: WebhookCaller): Promise<void> {
    const role = await repos.tenancy.orgRole(caller.orgId, caller.userId);
    if (role !== 'owner' && role !== 'admin') throw forbidden('Managing webhooks needs organization owner or admin authority.');
  }

  async function endpointOf(caller: WebhookCaller, id: string): Promise<WebhookEndpoint> {
    const row = isUuid(id) ? await repos.webhooks.endpoint(id) : undefined;
    if (row === undefined || row.orgId !== caller.orgId) throw notFound();
    await requireOrgAdmin(caller);
    return row;
  }

  return {
    async register(caller, body) {
      await requireOrgAdmin(caller);
      const url = await checkWebhookUrl(body.url, { allowPrivateNetworks: deps.allowPrivateNetworks, resolveAll: deps.resolveAll });
      const events = [...new Set(body.events ?? WEBHOOK_EVENT_TYPES)];
      const id = newId();
      const secret = mintSigningSecret();
      const endpoint: WebhookEndpoint = {
        id,
        orgId: caller.orgId,
        url: url.href,
        secretSealed: sealSecret(keyRing, secret, sealedSecretAad.webhookEndpoint(caller.orgId, id)),
        events,
        active: true,
        createdBy: caller.userId,
        createdAt: clock.now(),
      };
      await store.writer.submit(async (tx) => {
        await tx.repos.webhooks.insertEndpoint(endpoint);
      });
      return { webhook: view(endpoint), secret };
    },
    async list(caller) {
      await requireOrgAdmin(caller);
      return { webhooks: (await repos.webhooks.endpointsOfOrganization(caller.orgId)).map(view) };
    },
    async remove(caller, id) {
      const row = await endpointOf(caller, id);
      await store.writer.submit(async (tx) => {
        await deps.deliveries.cancelPending(tx.repos, row.id);
        await tx.repos.webhooks.deleteEndpoint(row.id);
      });
    },
    async deliveries(caller, id, options) {
      const row = await endpointOf(caller, id);
      const limit = options.limit ?? DELIVERIES_PAGE_DEFAULT;
      const before = options.cursor ? decodePosition(options.cursor) : null;
      const { rows: page, nextCursor } = probedPage(await repos.webhooks.deliveriesPage(row.id, before, limit + 1), limit, creationCursor);
      const byDelivery = new Map<string, WebhookAttempt[]>();
      for (const attempt of await repos.webhooks.attemptsOf(page.map((d) => d.id))) {
        const list = byDelivery.get(attempt.deliveryId) ?? [];
        list.push(attempt);
        byDelivery.set(attempt.deliveryId, list);
      }
      return { deliveries: page.map((d) => deliveryView(d, byDelivery.get(d.id) ?? [])), nextCursor };
    },
  };
}
