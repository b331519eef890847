// The credentials a route can declare: how the kernel resolves the caller, and the security OpenAPI publishes for it.
import type { UserPrincipal } from '../runtime/auth/principal.js';
import type { Services } from '../runtime/services.js';
import { requireApiKey, requireAuthoringCredential, requireConsole, requireKeyOrConsole, requireManageCredential, requireManager } from './auth.js';
import { requireLease, requirePartnerKey, requireWorkerLease } from './partner-auth.js';
import type { Credential, HttpRequest, RouteDoc } from './types.js';

type Security = NonNullable<RouteDoc['security']>;

export function credential<C>(security: Security, resolve: (request: HttpRequest, services: Services) => C | Promise<C>): Credential<Services, C> {
  return { security, resolve };
}

/** The same credential, with the caller reduced to what the routes need (e.g. `{ userId, orgId }`). */
export function mapCredential<C, D>(base: Credential<Services, C>, map: (caller: C) => D): Credential<Services, D> {
  return { security: base.security, resolve: async (request, services) => map(await base.resolve(request, services)) };
}

/** No credential: a public route (`security: []`). */
export const PUBLIC: Credential<Services, undefined> = credential([], () => undefined);
/** `sv_` key; anything wrong with it is the uniform 404 (spec rule 6). */
export const API_KEY: Credential<Services, UserPrincipal> = credential(['apiKey'], requireApiKey);
/** Session routes and the approvals inbox: an `sv_` key, or the console cookie (writes same-origin only). */
export const KEY_OR_CONSOLE: Credential<Services, UserPrincipal> = credential(['apiKey', 'cookie'], requireKeyOrConsole);
/** Authoring: an `sv_` key or an `svu_` token. */
export const AUTHORING: Credential<Services, UserPrincipal> = credential(['apiKey', 'userToken'], requireAuthoringCredential);
/** Management (issue 13 item 6): a bearer credential as on key routes, else the console cookie (401). */
export const MANAGER: Credential<Services, UserPrincipal> = credential(['cookie', 'apiKey', 'userToken'], requireManager);
/** Management routes of triggers, automations, API keys and knowledge (http/auth.ts requireManageCredential). */
export const MANAGE: Credential<Services, UserPrincipal> = credential(['cookie', 'apiKey', 'userToken'], requireManageCredential);
/** The console's `service_session` cookie with an organization selected. */
export const CONSOLE: Credential<Services, UserPrincipal> = credential(['cookie'], requireConsole);
export const PARTNER_KEY = credential(['partnerKey'], requirePartnerKey);
export const LEASE = credential(['lease'], requireLease);
export const WORKER_LEASE = credential(['lease'], requireWorkerLease);
