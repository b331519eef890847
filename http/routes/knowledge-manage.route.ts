// Knowledge clean-up (console cookie, sv_ key or svu_ token): list a base's articles, unpublish and delete articles,
// remove an article from a module, delete modules. Authority as for authoring knowledge (manage_knowledge / org admin).
import { z } from 'zod';
import type { Services } from '../../runtime/services.js';
import { declareRoutes } from '../route-helpers.js';
import type { Route } from '../types.js';
import { ArticleResponse, EmptyBody } from './authoring.schemas.js';
import { ArticleListQuery, ArticleSummary, manageDoc, NextCursor, NoContent } from './manage.schemas.js';
import { managerOf } from './triggers-manage.route.js';

const BASE = '/api/v1/authoring';

const route = declareRoutes(managerOf);
const doc = <D extends Parameters<typeof manageDoc>[1]>(d: D) => manageDoc('authoring', d);
const AUTHORITY_403 = { description: 'FORBIDDEN: no manage_knowledge in the domain (organization owner/admin for organization-wide knowledge)' };

export const knowledgeManageRoutes: Route<Services>[] = [
  route({
    method: 'GET',
    path: `${BASE}/knowledge-bases/:baseId/articles`,
    uuidParams: ['baseId'],
    doc: doc({
      operationId: 'listArticles',
      summary: 'A knowledge base\'s articles without their bodies, oldest first; filter by published; page with cursor.',
      query: ArticleListQuery,
      responses: {
        200: { description: 'a page of articles', schema: z.object({ articles: z.array(ArticleSummary), nextCursor: NextCursor }) },
        400: { description: 'VALIDATION: unknown query parameter, published, limit or cursor' },
        403: AUTHORITY_403,
      },
    }),
    async handler({ caller, query, params }, services) {
      return { status: 200, body: await services.manage.knowledge.listArticles(caller, params.baseId as string, query) };
    },
  }),
  route({
    method: 'POST',
    path: `${BASE}/articles/:articleId/unpublish`,
    uuidParams: ['articleId'],
    allowEmptyBody: true,
    doc: doc({
      operationId: 'unpublishArticle',
      summary: 'Unpublish (idempotent): knowledge.search stops finding the article at once; the draft and module memberships stay, publish brings it back.',
      body: EmptyBody,
      responses: { 200: { description: 'the article', schema: ArticleResponse }, 400: { description: 'VALIDATION: the body must be empty or {}' }, 403: AUTHORITY_403 },
    }),
    handler: async ({ caller, params }, services) => ({
      status: 200,
      body: await services.manage.knowledge.unpublishArticle(caller, params.articleId as string),
    }),
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/articles/:articleId`,
    uuidParams: ['articleId'],
    doc: doc({
      operationId: 'deleteArticle',
      summary: 'Delete an article: gone from search and from every module at once.',
      responses: { 204: NoContent, 403: AUTHORITY_403 },
    }),
    async handler({ caller, params }, services) {
      await services.manage.knowledge.deleteArticle(caller, params.articleId as string);
      return { status: 204 };
    },
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/knowledge-modules/:moduleId/articles/:articleId`,
    uuidParams: ['moduleId', 'articleId'],
    doc: doc({
      operationId: 'removeModuleArticle',
      summary: 'Take an article out of a module (the article itself stays). 404 when it is not a member.',
      responses: { 204: NoContent, 403: AUTHORITY_403 },
    }),
    async handler({ caller, params }, services) {
      await services.manage.knowledge.removeFromModule(caller, params.moduleId as string, params.articleId as string);
      return { status: 204 };
    },
  }),
  route({
    method: 'DELETE',
    path: `${BASE}/knowledge-modules/:moduleId`,
    uuidParams: ['moduleId'],
    doc: doc({
      operationId: 'deleteKnowledgeModule',
      summary: 'Delete a module with its memberships (the articles stay); agents selecting it stop naming it in their knowledge selection.',
      responses: { 204: NoContent, 403: AUTHORITY_403 },
    }),
    async handler({ caller, params }, services) {
      await services.manage.knowledge.deleteModule(caller, params.moduleId as string);
      return { status: 204 };
    },
  }),
];
