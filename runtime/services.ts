// The runtime services every route handler receives; built once per service instance.
import type { Storage } from '../storage/port/storage.js';
import type { TokenBuckets } from './rate-limit.js';
import type { Authenticator } from './auth/authenticator.js';
import type { SignInService } from './auth/sign-in.js';
import type { Clock } from './clock.js';
import type { ServiceConfig } from './config.js';
import type { Logger } from './logger.js';
import type { KeyRing } from './vault/index.js';
import type { AuthoringService } from './authoring/authoring.service.js';
import type { ActorRegistry } from './actors/index.js';
import type { Admission } from './execution/admission.js';
import type { SessionEventBus } from './events/index.js';
import type { Scheduler } from './scheduler/index.js';
import type { SessionsRuntime } from './sessions/sessions.runtime.js';
import type { RunApprovals } from './flows/index.js';
import type { PartnersRuntime } from './partners/partners.runtime.js';
import type { ManagementRuntime } from './management/management.runtime.js';
import type { TriggerServices } from './triggers/trigger-services.js';
import type { McpRuntime } from './mcp/index.js';
import type { TriggerSourceServices } from './triggers/trigger-sources.js';
import type { WebhookServices } from './webhooks/webhook-services.js';
import type { ManageServices } from './manage/manage-services.js';

export interface CoreServices {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Storage;
  auth: Authenticator;
  /** Master keys that wrap every sealed secret (caller grants, connection secrets). */
  keyRing: KeyRing;
  signIn: SignInService;
  keyLimiter: TokenBuckets;
  /** False while booting or shutting down: /readyz answers 503. */
  ready: () => boolean;
}

/** SPEC "Authoring": catalog view, agents draft -> revision, knowledge modules/articles/selections. */
export interface AuthoringServices {
  authoring: AuthoringService;
}

/** The actor runtime (durable actors, durable timers, session event bus) and agent conversations on top of it. */
export interface ConversationServices {
  events: SessionEventBus;
  actors: ActorRegistry;
  /** The bound on queued executions (429 OVERLOADED past it); its stats feed /metrics. */
  admission: Admission;
  scheduler: Scheduler;
  /** Starter for every entry point, dispatcher (engines per automation kind), conversations, approvals, read models. */
  sessions: SessionsRuntime;
  /** Deciding a flow run's approval (the inbox route and the partner worker route). */
  runApprovals: RunApprovals;
}

/** SPEC "Partner API": provisioning, leases, workers, entitlements, support sessions, worker approvals. */
export interface PartnerServices {
  partners: PartnersRuntime;
}

/** Issue 13 item 6: partner customers, organization members, domains, connections, flows over HTTP. */
export interface ManagementServices {
  management: ManagementRuntime;
}

/** SPEC "MCP": protocol sessions and published agents as tools. */
export interface McpServices {
  mcp: McpRuntime;
}

/** SPEC "Trigger firing": fire (fan-out, idempotency) and Run history (TriggerServices: `fire`, `triggerRuns`). */
/** POST /triggers, schedule ticks, inbound event deliveries (TriggerSourceServices); outbound webhooks (WebhookServices). */
export type Services = CoreServices & AuthoringServices & ConversationServices & PartnerServices & ManagementServices & TriggerServices & TriggerSourceServices & WebhookServices & McpServices & ManageServices;
