// Customer-tenant calls: /api/v1 routes flagged `tenant` (or listed) under /api/partner/v1/organizations/:orgId, as the X-Service-Subject person.
/*
 * Each tenant route IS the /api/v1 route: same handler, schema and rules. The wrapper authenticates the partner
 * (its `svp_` key, or an app lease of that organization), resolves the person the subject header names, and
 * hands that principal to the route's own credential (http/auth.ts `actAs`), which then answers with it: for a
 * declared route the tenant step runs inside the credential the kernel resolves; for a raw route, before its handler. So
 * visibility, execute, drive, approval, entitlement and caller-credential rules are the personal-key ones.
 */
import { z } from 'zod';
import { resolveTenantSubject } from '../../runtime/partners/tenant-subject.js';
import type { Services } from '../../runtime/services.js';
import { actAs } from '../auth.js';
import { requireTenantCaller } from '../partner-auth.js';
import { derivedOperationId } from '../openapi/operation.js';
import { SESSION_LIFECYCLE_PATHS } from './session-lifecycle.route.js';
import { isDeclaredRoute, type Credential, type HttpRequest, type Route, type RouteDoc } from '../types.js';

const V1 = '/api/v1';
export const TENANT_BASE = '/api/partner/v1/organizations/:orgId';

/** The personal-key routes a partner may drive for a provisioned person (SPEC: at least agent sessions and fire). */
export const TENANT_ROUTE_PATHS: ReadonlySet<string> = new Set([
  '/api/v1/agents/:automationId/sessions',
  '/api/v1/agents/sessions/:sessionId/messages',
  '/api/v1/agents/sessions/:sessionId',
  '/api/v1/agents/sessions/:sessionId/stream',
  '/api/v1/agents/sessions/:sessionId/files/:fileId',
  '/api/v1/agents/sessions/:sessionId/turn-approval',
  '/api/v1/agents/sessions/:sessionId/cancel',
  '/api/v1/triggers/fire',
  '/api/v1/triggers/:triggerId/runs',
  '/api/v1/triggers/:triggerId/runs/:runId',
  ...SESSION_LIFECYCLE_PATHS,
]);

const SubjectHeader = z.object({
  'X-Service-Subject': z.string().min(1).describe('The partnerSubject of the provisioned person the call acts as (sent once).'),
});

/** One header, one value: a repeated X-Service-Subject names nobody. */
function subjectOf(request: HttpRequest): string | undefined {
  if ((request.headerCounts['x-service-subject'] ?? 0) !== 1) return undefined;
  return request.headers['x-service-subject']?.trim();
}

const capitalize = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

/** Authenticates the partner and resolves the X-Service-Subject person, whom the route's own credential then answers with. */
async function actAsSubject(request: HttpRequest, services: Services): Promise<void> {
  const orgId = request.params.orgId ?? '';
  const caller = await requireTenantCaller(request, services, orgId);
  actAs(request, await resolveTenantSubject(services.store, caller, orgId, subjectOf(request)));
}

const TENANT_SECURITY: NonNullable<RouteDoc['security']> = ['partnerKey', 'lease'];

function tenantDoc(route: Route<Services>): RouteDoc {
  return {
    ...route.doc,
    summary: `${route.doc.summary} Acts as the provisioned person named by X-Service-Subject.`,
    operationId: `tenant${capitalize(route.doc.operationId ?? derivedOperationId(route.method, route.path))}`,
    headers: route.doc.headers ? route.doc.headers.extend(SubjectHeader.shape) : SubjectHeader,
    responses: {
      ...route.doc.responses,
      401: { description: 'UNAUTHORIZED: missing or invalid svp_ key, or a lease of another organization' },
      404: { description: 'NOT_FOUND: unknown organization, X-Service-Subject missing, repeated or naming nobody here, or the route\'s own 404' },
    },
    tags: ['partner-tenant'],
    security: TENANT_SECURITY,
  };
}

function tenantRoute(route: Route<Services>): Route<Services> {
  const common = { tenant: false, path: TENANT_BASE + route.path.slice(V1.length), doc: tenantDoc(route) };
  if (isDeclaredRoute(route)) {
    // The tenant credential runs where the route's own would: once, in the kernel, before the body is read.
    const own = route.credential;
    const credential: Credential<Services, unknown> = {
      security: TENANT_SECURITY,
      async resolve(request, services) {
        await actAsSubject(request, services);
        return own.resolve(request, services);
      },
    };
    return { ...route, ...common, credential };
  }
  const { handler } = route;
  return {
    ...route,
    ...common,
    async handler(request, services) {
      await actAsSubject(request, services);
      return handler(request, services);
    },
  };
}

/**
 * Marks a whole route group as mirrored (e.g. `tenantMirrored(authoringRoutes)` in http/routes/index.ts). A single
 * route can instead set `tenant: true` where it is declared. Either way its credential must honour `actAs`
 * (requireApiKey, requireAuthoringCredential, requireConsole and requireManager do).
 */
export function tenantMirrored(routes: readonly Route<Services>[]): Route<Services>[] {
  return routes.map((route) => ({ ...route, tenant: true }));
}

/** The tenant twin of every `/api/v1` route that is flagged `tenant` or listed in TENANT_ROUTE_PATHS. */
export function partnerTenantRoutes(v1Routes: readonly Route<Services>[]): Route<Services>[] {
  return v1Routes.filter((route) => route.path.startsWith(`${V1}/`) && (route.tenant === true || TENANT_ROUTE_PATHS.has(route.path))).map(tenantRoute);
}
