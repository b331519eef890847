// Authoring routes for integrations and agents (SPEC "Authoring"): `sv_` key or `svu_` token, strict bodies.
import type { Services } from '../../runtime/services.js';
import { AUTHORING, mapCredential } from '../credentials.js';
import { declareRoutes } from '../route-helpers.js';
import type { HttpRequest, Route, RouteDoc } from '../types.js';
import {
  AgentDetailResponse,
  AgentResponse,
  CreateAgentBody,
  IntegrationListResponse,
  IntegrationResponse,
  IntegrationsQuery,
  PublishBody,
  PublishResponse,
  SetupPatchBody,
  SetupResponse,
  VerifyResponse,
} from './authoring.schemas.js';

const BASE = '/api/v1/authoring';

/**
 * A Setup holds up to 300,000 characters (principles + procedure); at 3 bytes a character (CJK) or 6 (`\u0001`
 * escapes) that passes the default 1 MB, so the routes that carry one accept 2 MB.
 */
export const SETUP_BODY_LIMIT = 2 * 1024 * 1024;

/** Every authoring route: same credentials, same tag, and the errors the spec names for the group. */
export function authoringDoc<D extends RouteDoc>(doc: D): D {
  return {
    tags: ['authoring'],
    ...doc,
    responses: {
      ...doc.responses,
      400: { description: 'VALIDATION: unknown field in the strict body, or a bound exceeded' },
      404: { description: 'NOT_FOUND: bad credential, unknown id, or another organization\'s id (uniform)' },
    },
  };
}

/** The person the credential acts as, with membership re-read now (a disabled or removed user is refused). */
export const authorOf = mapCredential(AUTHORING, (principal) => ({ userId: principal.userId, orgId: principal.orgId }));

/** An authoring route: the caller is `authorOf` the credential, then the body `doc.body` names is parsed. */
export const authoringRoute = declareRoutes(authorOf);

export const authoringRoutes: Route<Services>[] = [
  authoringRoute({
    method: 'GET',
    path: `${BASE}/integrations`,
    doc: authoringDoc({
      operationId: 'searchIntegrations',
      summary: 'Search the integration catalog (q: trimmed, case-insensitive, at most 200 characters); at most 50 integrations.',
      query: IntegrationsQuery,
      responses: { 200: { description: 'matching integrations', schema: IntegrationListResponse } },
    }),
    handler: async ({ caller, query }, services) => ({ status: 200, body: { integrations: await services.authoring.integrations.search(caller, query.q ?? '') } }),
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/integrations/:id`,
    doc: authoringDoc({
      operationId: 'getIntegration',
      summary: 'One integration with each tool\'s inputSchema.',
      responses: { 200: { description: 'integration', schema: IntegrationResponse } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.integrations.read(caller, params.id) }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/automations`,
    bodyLimit: SETUP_BODY_LIMIT,
    doc: authoringDoc({
      operationId: 'createAgent',
      summary: 'Create an Agent (never a Flow) with an optional initial Setup; it is not published. Requires edit_automation in the domain.',
      body: CreateAgentBody,
      responses: { 201: { description: 'created agent', schema: AgentResponse, headers: ['Location'] }, 403: { description: 'FORBIDDEN: no edit_automation in the domain' } },
    }),
    async handler({ caller, body }, services) {
      const created = await services.authoring.agents.create(caller, body);
      return { status: 201, headers: { location: `${BASE}/automations/${created.id}` }, body: created };
    },
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/automations/:id`,
    doc: authoringDoc({
      operationId: 'getAutomation',
      summary: 'An automation with its draft Setup and the published revision runs use. Requires edit_automation.',
      responses: { 200: { description: 'automation', schema: AgentDetailResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: ({ caller, params }, services) => ({ status: 200, body: services.authoring.agents.read(caller, params.id) }),
  }),
  authoringRoute({
    method: 'PATCH',
    path: `${BASE}/automations/:id/setup`,
    bodyLimit: SETUP_BODY_LIMIT,
    doc: authoringDoc({
      operationId: 'patchSetup',
      summary: 'Change any of the four Setup fields (omitted fields unchanged); creates no revision and leaves the published pointer. Requires edit_automation.',
      body: SetupPatchBody,
      responses: { 200: { description: 'the draft Setup', schema: SetupResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params, body }, services) => ({ status: 200, body: { setup: await services.authoring.agents.patchSetup(caller, params.id, body) } }),
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/automations/:id/verify`,
    doc: authoringDoc({
      operationId: 'verifyAutomation',
      summary: 'Run the publish verifier on the draft without changing anything. Requires edit_automation.',
      responses: { 200: { description: 'findings, planned belt, warnings', schema: VerifyResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.agents.verify(caller, params.id) }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/automations/:id/publish`,
    allowEmptyBody: true,
    doc: authoringDoc({
      operationId: 'publishAutomation',
      summary: 'Publish the draft as the next immutable revision (1, 2, 3…) when the verifier finds no problems; warnings never block.',
      body: PublishBody,
      responses: {
        201: { description: 'published revision and its belt', schema: PublishResponse },
        403: { description: 'FORBIDDEN' },
        422: { description: 'VALIDATION: the verifier found problems; error.details.findings lists { message, span }' },
      },
    }),
    async handler({ caller, params, body }, services) {
      const note = body.changeNote ? body.changeNote : null;
      return { status: 201, body: await services.authoring.agents.publish(caller, params.id, note) };
    },
  }),
];
