// All repositories over one connection; each feature adds its repo here (one line each).
import type { SqliteDatabase } from '../database.js';
import { createAutomationsRepo } from './automations.repo.js';
import { createIntegrationsRepo } from './integrations.repo.js';
import { createKnowledgeRepo } from './knowledge.repo.js';
import { createPartnersRepo } from './partners.repo.js';
import { createTriggersRepo } from './triggers.repo.js';
import { createCredentialsRepo } from './credentials.repo.js';
import { createSessionEventsRepo } from './session-events.repo.js';
import { createTenancyRepo } from './tenancy.repo.js';
import { createSnapshotsRepo } from './snapshots.repo.js';
import { createTimersRepo } from './timers.repo.js';
import { createSessionsRepo } from './sessions.repo.js';
import { createSessionListRepo } from './session-list.repo.js';
import { createExecutionsRepo } from './executions.repo.js';
import { createApprovalsRepo } from './approvals.repo.js';
import { createTriggerRunsRepo } from './trigger-runs.repo.js';
import { createFireClaimsRepo } from './fire-claims.repo.js';
import { createServiceKeysRepo } from './service-keys.repo.js';
import { createProvisioningRepo } from './provisioning.repo.js';
import { createLeasesRepo } from './leases.repo.js';
import { createWorkersRepo } from './workers.repo.js';
import { createEntitlementsRepo } from './entitlements.repo.js';
import { createSupportGrantsRepo } from './support-grants.repo.js';
import { createEventDeliveriesRepo } from './event-deliveries.repo.js';
import { createWebhooksRepo } from './webhooks.repo.js';
import { createGaugesRepo } from './gauges.repo.js';
import { createManagementRepo } from './management.repo.js';
import { createOperationsRepo } from './operations.repo.js';

export function createRepositories(db: SqliteDatabase) {
  return {
    automations: createAutomationsRepo(db),
    integrations: createIntegrationsRepo(db),
    triggers: createTriggersRepo(db),
    knowledge: createKnowledgeRepo(db),
    partners: createPartnersRepo(db),
    tenancy: createTenancyRepo(db),
    credentials: createCredentialsRepo(db),
    sessionEvents: createSessionEventsRepo(db),
    snapshots: createSnapshotsRepo(db),
    timers: createTimersRepo(db),
    sessions: createSessionsRepo(db),
    sessionList: createSessionListRepo(db),
    executions: createExecutionsRepo(db),
    approvals: createApprovalsRepo(db),
    triggerRuns: createTriggerRunsRepo(db),
    fireClaims: createFireClaimsRepo(db),
    serviceKeys: createServiceKeysRepo(db),
    provisioning: createProvisioningRepo(db),
    leases: createLeasesRepo(db),
    workers: createWorkersRepo(db),
    entitlements: createEntitlementsRepo(db),
    supportGrants: createSupportGrantsRepo(db),
    eventDeliveries: createEventDeliveriesRepo(db),
    webhooks: createWebhooksRepo(db),
    gauges: createGaugesRepo(db),
    management: createManagementRepo(db),
    operations: createOperationsRepo(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
