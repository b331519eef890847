// The console's organization picker: the signed-in person's organizations, and switching the cookie to one of them.
import { z } from 'zod';
import { consoleAccount, createOrgChoiceService, type ConsoleAccount } from '../../runtime/auth/org-choice.js';
import type { Services } from '../../runtime/services.js';
import { consoleCookie, sessionCookie } from '../auth.js';
import { credential } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';

/** The console cookie, with or without an organization selected (a person in several signs in without one). */
const ACCOUNT = credential(['cookie'], async (request, services: Services): Promise<ConsoleAccount> => {
  const account = await consoleAccount(services.auth, consoleCookie(request));
  services.keyLimiter.take(`console:${account.sessionId}`);
  return account;
});
const accountRoute = declareRoutes(ACCOUNT);

const OrganizationChoiceSchema = z
  .object({ orgId: z.uuid(), name: z.string(), role: z.enum(['owner', 'admin', 'member']).describe('The person\'s organization role.') })
  .meta({ id: 'OrganizationChoice' });
const OrganizationsAnswer = z.object({
  organizations: z.array(OrganizationChoiceSchema).describe('Enabled memberships of organizations that are not suspended, by name.'),
  currentOrgId: z.uuid().nullable().describe('The organization the console session works in; null when none is selected yet.'),
});
const SelectBody = z.strictObject({ orgId: z.uuid() });
const SelectAnswer = z.object({ userId: z.uuid(), orgId: z.uuid() });

export const consoleOrgRoutes: Route<Services>[] = [
  accountRoute({
    method: 'GET',
    path: '/api/v1/console/organizations',
    doc: {
      summary: 'The organizations the signed-in person can work in, with their role (no organization needs to be selected).',
      operationId: 'listConsoleOrganizations',
      tags: ['console'],
      responses: { 200: { description: 'organizations', schema: OrganizationsAnswer }, 401: { description: 'UNAUTHORIZED: no console session' } },
    },
    async handler({ caller }, services) {
      const organizations = await createOrgChoiceService(services).list(caller);
      const current = caller.orgId !== null && organizations.some((o) => o.orgId === caller.orgId) ? caller.orgId : null;
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: { organizations, currentOrgId: current } };
    },
  }),
  accountRoute({
    method: 'POST',
    path: '/api/v1/console/organization',
    doc: {
      summary: 'Work in another of the person\'s organizations: replaces the console session (a new cookie, same expiry; the old one stops working).',
      operationId: 'selectConsoleOrganization',
      tags: ['console'],
      body: SelectBody,
      responses: {
        200: { description: 'the session now works in this organization', schema: SelectAnswer, headers: ['Set-Cookie'] },
        400: { description: 'VALIDATION' },
        401: { description: 'UNAUTHORIZED: no console session' },
        403: { description: 'FORBIDDEN: direct sign-in is disabled for this organization' },
        404: { description: 'NOT_FOUND: not an organization the person can work in (not a member, disabled, or suspended)' },
      },
    },
    async handler({ caller, body, request }, services) {
      const chosen = await createOrgChoiceService(services).select(caller, body.orgId);
      const maxAgeSeconds = Math.max(0, Math.floor((chosen.expiresAt - services.clock.now()) / 1000));
      return {
        status: 200,
        headers: { 'set-cookie': sessionCookie(chosen.secret, { secure: request.secure, maxAgeSeconds }), 'cache-control': 'no-store' },
        body: { userId: chosen.userId, orgId: chosen.orgId },
      };
    },
  }),
];
