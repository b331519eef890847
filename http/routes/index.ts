// Every route group, in one list; a feature adds its group with one line here.
import type { Services } from '../../runtime/services.js';
import type { HttpMetrics } from '../metrics.js';
import type { Route } from '../types.js';
import { authoringRoutes } from './authoring.route.js';
import { consoleRoutes } from './console.route.js';
import { consoleOrgRoutes } from './console-orgs.route.js';
import { consoleAssetRoutes } from './console-assets.route.js';
import { healthRoutes } from './health.route.js';
import { knowledgeRoutes } from './knowledge.route.js';
import { mcpRoutes } from './mcp.route.js';
import { meRoutes } from './me.route.js';
import { openApiRoute } from './openapi.route.js';
import { approvalsRoutes } from './approvals.route.js';
import { approvalsInboxRoutes } from './approvals-inbox.route.js';
import { sessionsRoutes } from './sessions.route.js';
import { sessionLifecycleRoutes } from './session-lifecycle.route.js';
import { sessionCancelRoutes } from './session-cancel.route.js';
import { triggerRunsRoutes } from './trigger-runs.route.js';
import { triggersFireRoutes } from './triggers-fire.route.js';
import { triggersAdminRoutes } from './triggers-admin.route.js';
import { triggerChoicesRoutes } from './trigger-choices.route.js';
import { eventDeliveryRoutes } from './event-delivery.route.js';
import { webhooksRoutes } from './webhooks.route.js';
import { activationRoutes } from './activation.route.js';
import { partnerEntitlementRoutes } from './partner-entitlements.route.js';
import { partnerLeaseRoutes } from './partner-leases.route.js';
import { partnerProvisioningRoutes } from './partner-provisioning.route.js';
import { partnerSupportRoutes } from './partner-support.route.js';
import { partnerTenantRoutes, tenantMirrored } from './partner-tenant.route.js';
import { partnerCustomerRoutes } from './partner-customers.route.js';
import { orgManageRoutes } from './org-manage.route.js';
import { connectionsManageRoutes } from './connections-manage.route.js';
import { operationsRoutes } from './operations.route.js';
import { flowsManageRoutes } from './flows-manage.route.js';
import { partnerWorkerApprovalRoutes } from './partner-worker-approvals.route.js';
import { partnerWorkerRoutes } from './partner-workers.route.js';
import { triggersManageRoutes } from './triggers-manage.route.js';
import { automationsManageRoutes } from './automations-manage.route.js';
import { apiKeysRoutes } from './api-keys.route.js';
import { knowledgeManageRoutes } from './knowledge-manage.route.js';
import { consoleRunRoutes } from './console-run.route.js';

export function allRoutes(metrics: HttpMetrics): Route<Services>[] {
  const routes: Route<Services>[] = [...healthRoutes(metrics), ...consoleRoutes, ...consoleOrgRoutes, ...meRoutes];
  // Authoring is mirrored for customer tenants as a group; a single route can set `tenant: true` instead.
  routes.push(...tenantMirrored(authoringRoutes), ...tenantMirrored(knowledgeRoutes));
  routes.push(...orgManageRoutes, ...connectionsManageRoutes, ...operationsRoutes, ...flowsManageRoutes, ...partnerCustomerRoutes);
  routes.push(...sessionsRoutes, ...approvalsRoutes, ...sessionCancelRoutes, ...approvalsInboxRoutes);
  routes.push(...sessionLifecycleRoutes);
  routes.push(...consoleRunRoutes);
  routes.push(...triggersFireRoutes, ...triggerRunsRoutes);
  routes.push(...triggersAdminRoutes, ...eventDeliveryRoutes, ...webhooksRoutes);
  routes.push(...triggerChoicesRoutes);
  // Every management route honours actAs (test/http/manage/mirror-ready.test.ts), so each group is mirrored whole.
  routes.push(...tenantMirrored([...triggersManageRoutes, ...automationsManageRoutes, ...apiKeysRoutes, ...knowledgeManageRoutes]));
  routes.push(...activationRoutes, ...partnerProvisioningRoutes, ...partnerLeaseRoutes, ...partnerWorkerRoutes, ...partnerEntitlementRoutes);
  routes.push(...partnerWorkerApprovalRoutes, ...partnerSupportRoutes, ...partnerTenantRoutes(routes));
  routes.push(...mcpRoutes);
  routes.push(...consoleAssetRoutes);
  routes.push(openApiRoute(() => routes));
  return routes;
}
