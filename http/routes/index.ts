// Every route group, in one list; a feature adds its group with one line here.
import type { Services } from '../../runtime/services.js';
import type { HttpMetrics } from '../metrics.js';
import type { Route } from '../types.js';
import { authoringRoutes } from './authoring.route.js';
import { consoleRoutes } from './console.route.js';
import { healthRoutes } from './health.route.js';
import { knowledgeRoutes } from './knowledge.route.js';
import { mcpRoutes } from './mcp.route.js';
import { meRoutes } from './me.route.js';
import { openApiRoute } from './openapi.route.js';
import { approvalsRoutes } from './approvals.route.js';
import { sessionsRoutes } from './sessions.route.js';
import { sessionCancelRoutes } from './session-cancel.route.js';
import { triggerRunsRoutes } from './trigger-runs.route.js';
import { triggersFireRoutes } from './triggers-fire.route.js';
import { triggersAdminRoutes } from './triggers-admin.route.js';
import { eventDeliveryRoutes } from './event-delivery.route.js';
import { webhooksRoutes } from './webhooks.route.js';
import { activationRoutes } from './activation.route.js';
import { partnerEntitlementRoutes } from './partner-entitlements.route.js';
import { partnerLeaseRoutes } from './partner-leases.route.js';
import { partnerProvisioningRoutes } from './partner-provisioning.route.js';
import { partnerSupportRoutes } from './partner-support.route.js';
import { partnerTenantRoutes } from './partner-tenant.route.js';
import { partnerWorkerApprovalRoutes } from './partner-worker-approvals.route.js';
import { partnerWorkerRoutes } from './partner-workers.route.js';

export function allRoutes(metrics: HttpMetrics): Route<Services>[] {
  const routes: Route<Services>[] = [...healthRoutes(metrics), ...consoleRoutes, ...meRoutes];
  routes.push(...authoringRoutes, ...knowledgeRoutes);
  routes.push(...sessionsRoutes, ...approvalsRoutes, ...sessionCancelRoutes);
  routes.push(...triggersFireRoutes, ...triggerRunsRoutes);
  routes.push(...triggersAdminRoutes, ...eventDeliveryRoutes, ...webhooksRoutes);
  routes.push(...activationRoutes, ...partnerProvisioningRoutes, ...partnerLeaseRoutes, ...partnerWorkerRoutes, ...partnerEntitlementRoutes);
  routes.push(...partnerWorkerApprovalRoutes, ...partnerSupportRoutes, ...partnerTenantRoutes(routes));
  routes.push(...mcpRoutes);
  routes.push(openApiRoute(() => routes));
  return routes;
}
