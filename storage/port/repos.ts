// The storage port's repository types: each SQLite repository's functions, records in and out, returning promises.
import type { CredentialsRepo } from '../repos/credentials.repo.js';
import type { EntitlementsRepo } from '../repos/entitlements.repo.js';
import type { EventDeliveriesRepo } from '../repos/event-deliveries.repo.js';
import type { GaugesRepo } from '../repos/gauges.repo.js';
import type { IntegrationsRepo } from '../repos/integrations.repo.js';
import type { KnowledgeRepo } from '../repos/knowledge.repo.js';
import type { LeasesRepo } from '../repos/leases.repo.js';
import type { ManagementRepo } from '../repos/management.repo.js';
import type { OperationsRepo } from '../repos/operations.repo.js';
import type { PartnersRepo } from '../repos/partners.repo.js';
import type { ProvisioningRepo } from '../repos/provisioning.repo.js';
import type { ServiceKeysRepo } from '../repos/service-keys.repo.js';
import type { SupportGrantsRepo } from '../repos/support-grants.repo.js';
import type { TenancyRepo } from '../repos/tenancy.repo.js';
import type { WebhooksRepo } from '../repos/webhooks.repo.js';
import type { WorkersRepo } from '../repos/workers.repo.js';
import type { TriggerRunsRepo } from '../repos/trigger-runs.repo.js';
import type { FireClaimsRepo } from '../repos/fire-claims.repo.js';
import type { TriggersRepo } from '../repos/triggers.repo.js';
import type { AutomationsRepo } from '../repos/automations.repo.js';
import type { TimersRepo } from '../repos/timers.repo.js';
import type { SessionsRepo } from '../repos/sessions.repo.js';
import type { SessionListRepo } from '../repos/session-list.repo.js';
import type { ExecutionsRepo } from '../repos/executions.repo.js';
import type { SessionEventsRepo } from '../repos/session-events.repo.js';
import type { SnapshotsRepo } from '../repos/snapshots.repo.js';
import type { ApprovalsRepo } from '../repos/approvals.repo.js';

/**
 * A repository whose every function takes the same arguments as the synchronous (SQLite) one and resolves to the
 * same result. The SQLite repositories' types stay the reference: a driver that drifts from them fails to compile.
 */
export type AsyncRepo<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Promise<Awaited<T>> : never;
};

/** The repositories both drivers implement so far; it grows as repositories are converted to records and ported. */
export interface AsyncRepositories {
  tenancy: AsyncRepo<TenancyRepo>;
  serviceKeys: AsyncRepo<ServiceKeysRepo>;
  entitlements: AsyncRepo<EntitlementsRepo>;
  supportGrants: AsyncRepo<SupportGrantsRepo>;
  provisioning: AsyncRepo<ProvisioningRepo>;
  partners: AsyncRepo<PartnersRepo>;
  leases: AsyncRepo<LeasesRepo>;
  workers: AsyncRepo<WorkersRepo>;
  eventDeliveries: AsyncRepo<EventDeliveriesRepo>;
  management: AsyncRepo<ManagementRepo>;
  gauges: AsyncRepo<GaugesRepo>;
  operations: AsyncRepo<OperationsRepo>;
  triggerRuns: AsyncRepo<TriggerRunsRepo>;
  fireClaims: AsyncRepo<FireClaimsRepo>;
  triggers: AsyncRepo<TriggersRepo>;
  automations: AsyncRepo<AutomationsRepo>;
  timers: AsyncRepo<TimersRepo>;
  credentials: AsyncRepo<CredentialsRepo>;
  webhooks: AsyncRepo<WebhooksRepo>;
  integrations: AsyncRepo<IntegrationsRepo>;
  knowledge: AsyncRepo<KnowledgeRepo>;
  sessions: AsyncRepo<SessionsRepo>;
  sessionList: AsyncRepo<SessionListRepo>;
  executions: AsyncRepo<ExecutionsRepo>;
  sessionEvents: AsyncRepo<SessionEventsRepo>;
  snapshots: AsyncRepo<SnapshotsRepo>;
  approvals: AsyncRepo<ApprovalsRepo>;
}
