// The shape every management route shares (issue 13 item 6): the manager credential, mirrored for customer tenants.
import type { UserPrincipal } from '../../runtime/auth/principal.js';
import type { Services } from '../../runtime/services.js';
import { MANAGER } from '../credentials.js';
import { declareRoutes, type GuardedRoute } from '../route-helpers.js';
import type { ResponseDoc, Route, RouteDoc } from '../types.js';

const guarded = declareRoutes(MANAGER);

/** Console cookie, `sv_` key or `svu_` token; every route is also a customer-tenant route. */
export function manageRoute<D extends RouteDoc>(route: GuardedRoute<Services, UserPrincipal, D>): Route<Services> {
  return { ...guarded(route), tenant: true };
}


/** The error answers every management route shares; `extra` adds or overrides. */
export function manageErrors(extra: Record<number, ResponseDoc> = {}): Record<number, ResponseDoc> {
  return {
    401: { description: 'UNAUTHORIZED: no console session (and no bearer credential)' },
    403: { description: 'FORBIDDEN: inside the organization, without the role this needs' },
    404: { description: 'NOT_FOUND: a bearer credential that does not resolve, or an unknown or another organization\'s id (indistinguishable)' },
    ...extra,
  };
}
