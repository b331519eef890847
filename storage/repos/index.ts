// All repositories over one connection; each feature adds its repo here (one line each).
import type { SqliteDatabase } from '../database.js';
import { createReadCache, type ReadCache } from '../read-cache.js';
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

/** `cache` watches the writes made through `cache.db`: pass the same one the rest of the store writes through. */
export function createRepositories(raw: SqliteDatabase, cache: ReadCache = createReadCache(raw)) {
  const db = cache.db;
  const repos = {
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
  cacheHotReads(repos, cache);
  return repos;
}

/**
 * The reads every API request or fire makes, served from memory until a write to their tables (storage/read-cache.ts):
 * the key check, the trigger and its subscribers, each subscriber's automation, entitlement override and published
 * version, the caller's domain role and user row (GET /me, membership checks), whether an organization has active
 * webhook endpoints (asked after every fire), and what every agent turn resolves its knowledge from (its selection
 * and its organization's modules), the integrations its tools come from, and the connections its calls run as.
 */
function cacheHotReads(repos: Omit<Repositories, never>, cache: ReadCache): void {
  const { credentials, triggers, automations, entitlements, tenancy, knowledge, webhooks, integrations } = repos;
  credentials.activeApiKeyByHash = cache.cached(credentials.activeApiKeyByHash, (hash) => hash.toString('hex'));
  triggers.trigger = cache.cached(triggers.trigger, (id) => id);
  triggers.subscribers = cache.cached(triggers.subscribers, (id) => id);
  automations.automation = cache.cached(automations.automation, (id) => id);
  automations.agentRevision = cache.cached(automations.agentRevision, (id, revision) => `${id}@${revision}`);
  automations.flowVersion = cache.cached(automations.flowVersion, (id, version) => `${id}@${version}`);
  entitlements.override = cache.cached(entitlements.override, (orgId, automationId) => `${orgId}:${automationId}`);
  tenancy.domainRole = cache.cached(tenancy.domainRole, (domainId, userId) => `${domainId}:${userId}`);
  tenancy.user = cache.cached(tenancy.user, (id) => id);
  webhooks.hasActiveEndpoints = cache.cached(webhooks.hasActiveEndpoints, (orgId) => orgId);
  automations.knowledgeSelection = cache.cached(automations.knowledgeSelection, (id) => id);
  knowledge.modulesOfOrganization = cache.cached(knowledge.modulesOfOrganization, (orgId) => orgId);
  integrations.integrationsVisibleTo = cache.cached(integrations.integrationsVisibleTo, (orgId) => orgId);
  // Asked by every tool call that runs as the organization. The rows hold the sealed blob only: the secret is still
  // opened per call and lives in that call's identity alone (runtime/turns/call-identity.ts).
  integrations.connectionsFor = cache.cached(integrations.connectionsFor, (orgId, integrationId) => `${orgId}\n${integrationId}`);
}

export type Repositories = ReturnType<typeof createRepositories>;
