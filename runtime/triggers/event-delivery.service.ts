// Owns inbound deliveries to an event trigger: signature, webhook-id dedupe, event type and filter, then the fan-out.
/*
 * POST /api/v1/events/:triggerId (docs/decisions.md "Inbound event deliveries"):
 *   not an active event trigger (unknown id, paused, another type)            -> 404 NOT_FOUND
 *   no stored endpointSecret, or the Standard Webhooks signature / timestamp fails (5 minutes either side of the
 *   injected clock)                                                            -> 401 UNAUTHORIZED (nothing recorded)
 *   a webhook-id already recorded for this trigger                             -> 202, the first answer, duplicate: true
 *   body not a JSON object, or nested deeper than config.jsonMaxDepth           -> 400 VALIDATION
 *   `type` present and not the trigger's eventType, or the filter misses        -> 202 { status: 'skipped', reason } (recorded)
 *   otherwise: fan out like a fire (source 'event', no caller: SPEC Trigger firing rule 7) -> 202 { status: 'fired', runId, sessions }
 * The dedupe row commits in the firing's own unit of work, so a message fires at most once even when the sender
 * retries concurrently, on one node or several (the primary key decides; the loser answers the winner's result).
 */
import type { EventDelivery } from '../../storage/records/event-deliveries.js';
import { isUniqueViolationOn } from '../../storage/port/errors.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import { parseBoundedJson } from '../bounded-json.js';
import type { Clock } from '../clock.js';
import { DEFAULT_CONFIG } from '../config.js';
import { AppError, notFound, validation } from '../errors.js';
import { isUuid } from '../ids.js';
import type { EventDefinition } from '../manifest/integration.schema.js';
import type { EventFilter } from '../manifest/trigger.schema.js';
import type { KeyRing } from '../vault/index.js';
import { openSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import { verifySignature } from '../webhooks/standard-webhooks.js';
import { matchesFilter, type InboundEvent } from './event-filter.js';
import { eventsOf } from './event-trigger-checks.js';
import type { FireService, StartedSession } from './fire.service.js';

/** Sender message ids longer than this are refused (they are stored as the dedupe key). */
export const MESSAGE_ID_MAX_LENGTH = 256;

export type EventSkipReason = 'EVENT_TYPE_MISMATCH' | 'FILTER_MISS';

export interface EventDeliveryBody {
  status: 'fired' | 'skipped';
  runId?: string;
  sessions?: readonly StartedSession[];
  reason?: EventSkipReason;
  /** True when this webhook-id was already handled: nothing ran again. */
  duplicate?: true;
}

export interface EventDeliveryAnswer {
  body: EventDeliveryBody;
  /** Hands started sessions to their engines; call once the 202 is on its way. */
  dispatch(): void;
}

export interface EventDeliveryService {
  deliver(triggerId: string, headers: Readonly<Record<string, string | undefined>>, body: Buffer): Promise<EventDeliveryAnswer>;
}

export interface EventDeliveryDeps {
  store: Storage;
  clock: Clock;
  keyRing: KeyRing;
  fire: Pick<FireService, 'fanOut'>;
  /** Deepest nesting a delivery body may have (config.jsonMaxDepth; the default without it). */
  jsonMaxDepth?: number;
}

interface StoredEventConfig {
  sourceIntegrationId: string;
  eventType: string;
  filter: EventFilter | null;
}

class AlreadyDelivered extends Error {}

const noop = (): void => {};
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function replay(row: EventDelivery): EventDeliveryAnswer {
  const body: EventDeliveryBody =
    row.status === 'fired'
      ? { status: 'fired', ...(row.runId !== null ? { runId: row.runId } : {}), duplicate: true }
      : { status: 'skipped', reason: row.reason as EventSkipReason, duplicate: true };
  return { body, dispatch: noop };
}

/** Standard Webhooks payloads are `{ type, timestamp, data }`; `occurredAt` and `actor` are read when present. */
function inboundEvent(body: Record<string, unknown>, signedAtMs: number): InboundEvent {
  const when = typeof body.occurredAt === 'string' ? body.occurredAt : typeof body.timestamp === 'string' ? body.timestamp : null;
  const parsed = when === null ? Number.NaN : Date.parse(when);
  return {
    type: typeof body.type === 'string' ? body.type : null,
    occurredAt: Number.isNaN(parsed) ? signedAtMs : parsed,
    actor: isObject(body.actor) ? body.actor : null,
    payload: isObject(body.data) ? body.data : body,
  };
}

export function createEventDeliveryService(deps: EventDeliveryDeps): EventDeliveryService {
  const { store, clock, keyRing } = deps;
  const { repos } = store;

  async function definitionOf(config: StoredEventConfig, orgId: string): Promise<Pick<EventDefinition, 'payloadPaths'>> {
    const integration = await repos.integrations.integration(config.sourceIntegrationId);
    if (integration === undefined || (integration.orgId !== null && integration.orgId !== orgId)) return { payloadPaths: [] };
    return eventsOf(integration).find((e) => e.type === config.eventType) ?? { payloadPaths: [] };
  }

  return {
    async deliver(triggerId, headers, raw) {
      const trigger = isUuid(triggerId) ? await repos.triggers.trigger(triggerId) : undefined;
      if (trigger === undefined || trigger.type !== 'event' || !trigger.active) throw notFound();
      // A suspended customer's event triggers answer like an inactive one: nothing fires, nothing is recorded.
      if (((await repos.tenancy.organization(trigger.orgId))?.suspendedAt ?? null) !== null) throw notFound();
      const unauthorized = (reason: string) => new AppError('UNAUTHORIZED', 'The delivery signature could not be verified.', { reason });
      if (trigger.endpointSecretSealed === null) throw unauthorized('no-endpoint-secret');
      const secret = openSecret(keyRing, trigger.endpointSecretSealed, sealedSecretAad.triggerEndpoint(trigger.orgId, trigger.id));
      if (typeof secret !== 'string') throw unauthorized('no-endpoint-secret');
      const verified = verifySignature(secret, headers, raw, clock.now());
      if (!verified.ok) throw unauthorized(verified.reason);
      if (verified.messageId.length > MESSAGE_ID_MAX_LENGTH) {
        throw validation('The delivery is not valid.', { issues: [{ path: 'webhook-id', message: `must be at most ${MESSAGE_ID_MAX_LENGTH} characters` }] });
      }

      const seen = await repos.eventDeliveries.delivery(trigger.id, verified.messageId);
      if (seen !== undefined) return replay(seen);

      // Bounded like every request body: a deep `data` would pass here and overflow JSON.stringify in the fan-out.
      const parsed = parseBoundedJson(raw.toString('utf8'), deps.jsonMaxDepth ?? DEFAULT_CONFIG.jsonMaxDepth, 'The delivery body is not valid JSON.');
      if (!isObject(parsed)) throw validation('The delivery body must be a JSON object.');

      const config = trigger.config as unknown as StoredEventConfig;
      const event = inboundEvent(parsed, verified.timestampMs);
      const record = async (unitRepos: Pick<PortRepositories, 'eventDeliveries'>, status: EventDelivery['status'], reason: EventSkipReason | null, runId: string | null, now: number) => {
        // Inside the unit of work: the check and the insert run in one unit (the unique key backs it on every driver).
        if ((await unitRepos.eventDeliveries.delivery(trigger.id, verified.messageId)) !== undefined) throw new AlreadyDelivered();
        await unitRepos.eventDeliveries.insert({ triggerId: trigger.id, messageId: verified.messageId, orgId: trigger.orgId, status, reason, runId, receivedAt: now });
      };
      const answerDuplicate = async (): Promise<EventDeliveryAnswer> => replay((await repos.eventDeliveries.delivery(trigger.id, verified.messageId))!);

      let skip: EventSkipReason | null = null;
      if (event.type !== null && event.type !== config.eventType) skip = 'EVENT_TYPE_MISMATCH';
      else if (config.filter !== null && !matchesFilter(config.filter, await definitionOf(config, trigger.orgId), event)) skip = 'FILTER_MISS';
      try {
        if (skip !== null) {
          const reason = skip;
          await store.writer.submit((tx) => record(tx.repos, 'skipped', reason, null, clock.now()));
          return { body: { status: 'skipped', reason }, dispatch: noop };
        }
        const input = isObject(event.payload) ? event.payload : {};
        const result = await deps.fire.fanOut(
          { trigger, source: 'event', firedBy: null, input, credentials: null, credentialExpiresAt: null },
          (unitRepos, runId, now) => record(unitRepos, 'fired', null, runId, now),
        );
        return { body: { status: 'fired', runId: result.runId, sessions: result.sessions }, dispatch: result.dispatch };
      } catch (error) {
        // The primary key (trigger, message) is the guarantee: on PostgreSQL a concurrent delivery's unit does not see
        // the winner's uncommitted row, its insert waits for that commit and fails. Its transaction refuses any further
        // statement, so the winner's answer is read after the unit, from committed state (as a keyed fire's is).
        if (error instanceof AlreadyDelivered || isUniqueViolationOn(error, 'event_deliveries')) return await answerDuplicate();
        throw error;
      }
    },
  };
}
