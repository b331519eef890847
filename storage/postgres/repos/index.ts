// Every PostgreSQL repository over one Queryable: a pool (each call autocommits) or one transaction's client.
import type { AsyncRepositories } from '../../port/repos.js';
import type { Queryable } from '../queryable.js';
import { createPostgresCredentialsRepo } from './credentials.repo.js';
import { createPostgresEntitlementsRepo } from './entitlements.repo.js';
import { createPostgresEventDeliveriesRepo } from './event-deliveries.repo.js';
import { createPostgresGaugesRepo } from './gauges.repo.js';
import { createPostgresIntegrationsRepo } from './integrations.repo.js';
import { createPostgresKnowledgeRepo } from './knowledge.repo.js';
import { createPostgresLeasesRepo } from './leases.repo.js';
import { createPostgresManagementRepo } from './management.repo.js';
import { createPostgresOperationsRepo } from './operations.repo.js';
import { createPostgresPartnersRepo } from './partners.repo.js';
import { createPostgresProvisioningRepo } from './provisioning.repo.js';
import { createPostgresServiceKeysRepo } from './service-keys.repo.js';
import { createPostgresSupportGrantsRepo } from './support-grants.repo.js';
import { createPostgresTenancyRepo } from './tenancy.repo.js';
import { createPostgresWebhooksRepo } from './webhooks.repo.js';
import { createPostgresWorkersRepo } from './workers.repo.js';
import { createPostgresTriggerRunsRepo } from './trigger-runs.repo.js';
import { createPostgresFireClaimsRepo } from './fire-claims.repo.js';
import { createPostgresTriggersRepo } from './triggers.repo.js';
import { createPostgresAutomationsRepo } from './automations.repo.js';
import { createPostgresTimersRepo } from './timers.repo.js';
import { createPostgresSessionsRepo } from './sessions.repo.js';
import { createPostgresSessionListRepo } from './session-list.repo.js';
import { createPostgresExecutionsRepo } from './executions.repo.js';
import { createPostgresSessionEventsRepo } from './session-events.repo.js';
import { createPostgresSnapshotsRepo } from './snapshots.repo.js';
import { createPostgresApprovalsRepo } from './approvals.repo.js';

/** Cheap (closures, no statements prepared): a unit of work builds a set per transaction, bound to its client. */
export function createPostgresRepositories(q: Queryable): AsyncRepositories {
  return {
    tenancy: createPostgresTenancyRepo(q),
    serviceKeys: createPostgresServiceKeysRepo(q),
    entitlements: createPostgresEntitlementsRepo(q),
    supportGrants: createPostgresSupportGrantsRepo(q),
    provisioning: createPostgresProvisioningRepo(q),
    partners: createPostgresPartnersRepo(q),
    leases: createPostgresLeasesRepo(q),
    workers: createPostgresWorkersRepo(q),
    eventDeliveries: createPostgresEventDeliveriesRepo(q),
    management: createPostgresManagementRepo(q),
    gauges: createPostgresGaugesRepo(q),
    operations: createPostgresOperationsRepo(q),
    triggerRuns: createPostgresTriggerRunsRepo(q),
    fireClaims: createPostgresFireClaimsRepo(q),
    triggers: createPostgresTriggersRepo(q),
    automations: createPostgresAutomationsRepo(q),
    timers: createPostgresTimersRepo(q),
    credentials: createPostgresCredentialsRepo(q),
    webhooks: createPostgresWebhooksRepo(q),
    integrations: createPostgresIntegrationsRepo(q),
    knowledge: createPostgresKnowledgeRepo(q),
    sessions: createPostgresSessionsRepo(q),
    sessionList: createPostgresSessionListRepo(q),
    executions: createPostgresExecutionsRepo(q),
    sessionEvents: createPostgresSessionEventsRepo(q),
    snapshots: createPostgresSnapshotsRepo(q),
    approvals: createPostgresApprovalsRepo(q),
  };
}
