// Personal `sv_` keys over the API (console cookie, sv_ key or svu_ token): create (secret once), list own, revoke;
// organization owners and admins list and revoke every key of their organization.
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { ApiKeyView, CreateApiKeyBody, manageDoc, NextCursor, NoContent, OrgKeysQuery, PageQuery } from './manage.schemas.js';
import { managerOf } from './triggers-manage.route.js';

const route = declareRoutes(managerOf);
const doc = <D extends Parameters<typeof manageDoc>[1]>(d: D) => manageDoc('api-keys', d);
const KeyPage = z.object({ apiKeys: z.array(ApiKeyView), nextCursor: NextCursor });
const QUERY_400 = { description: 'VALIDATION: unknown query parameter, limit, userId or cursor' };

export const apiKeysRoutes: Route<Services>[] = [
  route({
    method: 'POST',
    path: '/api/v1/api-keys',
    doc: doc({
      operationId: 'createApiKey',
      summary: 'Create a personal sv_ key acting as the caller in the current organization. The secret is in this answer only.',
      body: CreateApiKeyBody,
      responses: {
        201: { description: 'created; store the secret now', schema: z.object({ apiKey: ApiKeyView, secret: z.string().describe('The sv_ key, shown once.') }) },
        400: { description: 'VALIDATION: unknown field or name' },
        409: { description: 'CONFLICT (details.reason too_many_keys): 50 active keys already' },
      },
    }),
    handler: async ({ caller, body }, services) => ({
      status: 201,
      headers: { 'cache-control': 'no-store' },
      body: await services.manage.apiKeys.create(caller, body),
    }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/api-keys',
    doc: doc({
      operationId: 'listApiKeys',
      summary: 'The caller\'s own keys in this organization (revoked ones too), oldest first: name, hint, created, last used (to the minute).',
      query: PageQuery,
      responses: { 200: { description: 'a page of keys', schema: KeyPage }, 400: QUERY_400 },
    }),
    async handler({ caller, query }, services) {
      return { status: 200, body: await services.manage.apiKeys.listOwn(caller, query) };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/organization/api-keys',
    doc: doc({
      operationId: 'listOrganizationApiKeys',
      summary: 'Every key of the organization (optionally one member\'s), oldest first. Organization owners and admins only.',
      query: OrgKeysQuery,
      responses: { 200: { description: 'a page of keys', schema: KeyPage }, 400: QUERY_400, 403: { description: 'FORBIDDEN: not an organization owner or admin' } },
    }),
    async handler({ caller, query }, services) {
      return { status: 200, body: await services.manage.apiKeys.listOrganization(caller, query) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/api-keys/:keyId',
    uuidParams: ['keyId'],
    doc: doc({
      operationId: 'revokeApiKey',
      summary: 'Revoke a key (idempotent): it stops at once, the very next request with it is refused. Own keys; any key of the organization for its owners and admins.',
      responses: { 204: NoContent, 403: { description: 'FORBIDDEN: another member\'s key, and the caller is not an organization owner or admin' } },
    }),
    async handler({ caller, params }, services) {
      await services.manage.apiKeys.revoke(caller, params.keyId as string);
      return { status: 204 };
    },
  }),
];
