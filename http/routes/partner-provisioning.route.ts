// POST /api/partner/v1/organizations (idempotent provisioning) and GET …/organizations/:orgId (onboarding state).
import { z } from 'zod';
import { customerStatus } from '../../runtime/partners/customer-status.js';
import { provisioningBodySchema, provisioningFingerprint } from '../../runtime/partners/provisioning-request.js';
import type { Services } from '../../runtime/services.js';
import { PARTNER_KEY } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { HttpRequest, Route } from '../types.js';
import { IdempotencyKeyHeader } from './triggers-fire.route.js';
import { CustomerStatusSchema, ProvisioningOutcomeSchema } from './partner.schemas.js';

/** Provisioning rule 1: the key is required here (optional on fire). */
const ProvisioningHeaders = z.object({ 'Idempotency-Key': IdempotencyKeyHeader.shape['Idempotency-Key'].unwrap() });

const BASE = '/api/partner/v1';

/** Where the owner's activation link points: the configured public URL, else the address this request reached. */
export function linkBase(request: HttpRequest, services: Services): string {
  if (services.config.publicUrl) return services.config.publicUrl;
  const host = request.headers.host ?? `${services.config.host}:${services.config.port}`;
  return `${request.secure ? 'https' : 'http'}://${host}`;
}

const partnerRoute = declareRoutes(PARTNER_KEY);

export const partnerProvisioningRoutes: Route<Services>[] = [
  partnerRoute({
    method: 'POST',
    path: `${BASE}/organizations`,
    // Provisioning rule 6: the key, then the media type, then the body are refused before any claim exists.
    requireJsonContentType: true,
    doc: {
      summary: 'Provision one customer organization (owner, domain, template agents and flows). Requires Idempotency-Key; replays for 7 days.',
      operationId: 'provisionCustomer',
      tags: ['partner'],
      headers: ProvisioningHeaders,
      body: provisioningBodySchema,
      responses: {
        202: {
          description: 'the customer record exists; onboardingStatus tells how far onboarding got (a replay carries Idempotency-Replayed: true and owner.invitation null)',
          schema: ProvisioningOutcomeSchema,
          headers: ['Location', 'Idempotency-Replayed'],
        },
        400: { description: 'VALIDATION (body, or a missing / repeated / comma-separated / malformed Idempotency-Key) or CLIENT_SEGMENT_INVALID' },
        401: { description: 'UNAUTHORIZED: missing or invalid svp_ key' },
        403: { description: 'PARTNER_PLATFORM_SUSPENDED or PROVISIONING_NOT_ENABLED' },
        409: {
          description: 'IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_IN_PROGRESS (Retry-After: 2), IDEMPOTENCY_OUTCOME_UNKNOWN, TEMPLATE_SUSPENDED, QUOTA_EXHAUSTED, IDENTIFIER_TAKEN',
          headers: ['Retry-After'],
        },
        415: { description: 'UNSUPPORTED_MEDIA_TYPE: Content-Type is not application/json' },
        500: { description: 'PROVISIONING_FAILED: details carry the organization and its onboarding state' },
      },
    },
    async handler({ caller, idempotencyKey, body, json, request }, services) {
      const result = await services.partners.provisioning.provision({
        principal: caller,
        // Required by ProvisioningHeaders: the kernel refused a request without one.
        idempotencyKey: idempotencyKey as string,
        body,
        fingerprint: provisioningFingerprint(json),
        linkBase: linkBase(request, services),
      });
      const orgId = (result.body as { organization?: { id?: string } }).organization?.id;
      const headers: Record<string, string> = { 'cache-control': 'no-store' };
      if (orgId !== undefined) headers.location = `${BASE}/organizations/${orgId}`;
      if (result.replayed) headers['idempotency-replayed'] = 'true';
      return { status: result.status, headers, body: result.body };
    },
  }),
  partnerRoute({
    method: 'GET',
    path: `${BASE}/organizations/:orgId`,
    doc: {
      summary: 'One of this platform\'s customers: the organization and the progress of its onboarding run.',
      operationId: 'getCustomer',
      tags: ['partner'],
      responses: { 200: { description: 'organization, onboardingStatus, onboarding', schema: CustomerStatusSchema }, 401: { description: 'UNAUTHORIZED' }, 404: { description: 'NOT_FOUND: unknown or another platform\'s organization (indistinguishable)' } },
    },
    handler: async ({ caller, params }, services) => ({
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: await customerStatus(services.store.repos, caller.partnerId, params.orgId ?? ''),
    }),
  }),
];
