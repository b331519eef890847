// Knowledge authoring routes (SPEC "Authoring", "Knowledge resources"): modules, articles, membership, agent selection.
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { authoringDoc, authoringRoute } from './authoring.route.js';
import {
  ArticleResponse,
  BaseListResponse,
  CreateArticleBody,
  CreateModuleBody,
  EmptyBody,
  MembershipBody,
  MembershipResponse,
  ModuleDetailResponse,
  ModuleListResponse,
  ModuleResponse,
  SelectionBody,
  SelectionResponse,
  UpdateArticleBody,
} from './authoring.schemas.js';

const BASE = '/api/v1/authoring';

/**
 * draftBody is up to 2,000,000 characters; as UTF-8 JSON a character can take up to 6 bytes (a `\u0001` escape),
 * so article bodies get 13 MB instead of the default limit.
 */
export const ARTICLE_BODY_LIMIT = 13 * 1024 * 1024;

export const knowledgeRoutes: Route<Services>[] = [
  authoringRoute({
    method: 'PUT',
    path: `${BASE}/automations/:id/knowledge-selection`,
    doc: authoringDoc({
      operationId: 'setKnowledgeSelection',
      summary: 'Choose the knowledge an agent searches: none, org, domain, or listed modules (answer normalized and deduplicated). Requires manage_knowledge.',
      body: SelectionBody,
      responses: { 200: { description: 'the stored selection', schema: SelectionResponse }, 403: { description: 'FORBIDDEN: no manage_knowledge in the domain' } },
    }),
    handler: async ({ caller, params, body }, services) => ({ status: 200, body: await services.authoring.selections.set(caller, params.id, body) }),
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/automations/:id/knowledge-selection`,
    doc: authoringDoc({
      operationId: 'getKnowledgeSelection',
      summary: 'The agent\'s knowledge selection (mode none when never set). Requires manage_knowledge.',
      responses: { 200: { description: 'selection', schema: SelectionResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.selections.read(caller, params.id) }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/knowledge-modules`,
    doc: authoringDoc({
      operationId: 'createKnowledgeModule',
      summary: 'Create a knowledge module: kind domain (domainId required; manage_knowledge there) or org (no domainId; organization owner/admin).',
      body: CreateModuleBody,
      responses: { 201: { description: 'created module', schema: ModuleResponse, headers: ['Location'] }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler({ caller, body }, services) {
      const created = await services.authoring.knowledge.createModule(caller, body);
      return { status: 201, headers: { location: `${BASE}/knowledge-modules/${created.id}` }, body: created };
    },
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/knowledge-modules`,
    doc: authoringDoc({
      operationId: 'listKnowledgeModules',
      summary: 'Knowledge modules the caller can see: the organization\'s and those of domains the caller belongs to.',
      responses: { 200: { description: 'modules', schema: ModuleListResponse } },
    }),
    handler: async ({ caller }, services) => ({ status: 200, body: { modules: await services.authoring.knowledge.listModules(caller) } }),
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/knowledge-modules/:moduleId`,
    doc: authoringDoc({
      operationId: 'getKnowledgeModule',
      summary: 'One knowledge module with its member article ids.',
      responses: { 200: { description: 'module', schema: ModuleDetailResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.knowledge.readModule(caller, params.moduleId) }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/knowledge-modules/:moduleId/articles`,
    doc: authoringDoc({
      operationId: 'addModuleArticle',
      summary: 'Add a published article to a module. 409 CONFLICT (details.reason): article_unpublished, already_member, base_not_visible.',
      body: MembershipBody,
      responses: {
        201: { description: 'membership row', schema: MembershipResponse },
        403: { description: 'FORBIDDEN' },
        409: { description: 'CONFLICT: unpublished article or incompatible membership' },
      },
    }),
    handler: async ({ caller, params, body }, services) => ({ status: 201, body: await services.authoring.knowledge.addToModule(caller, params.moduleId, body.articleId) }),
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/knowledge-bases`,
    doc: authoringDoc({
      operationId: 'listKnowledgeBases',
      summary: 'Knowledge bases the caller may write articles in (domain bases: manage_knowledge; organization-wide: owner/admin).',
      responses: { 200: { description: 'bases', schema: BaseListResponse } },
    }),
    handler: async ({ caller }, services) => ({ status: 200, body: { bases: await services.authoring.knowledge.listBases(caller) } }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/knowledge-bases/:baseId/articles`,
    bodyLimit: ARTICLE_BODY_LIMIT,
    doc: authoringDoc({
      operationId: 'createArticle',
      summary: 'Create an article as an unpublished draft (title 1–240, draftBody up to 2,000,000 characters). Requires manage_knowledge.',
      body: CreateArticleBody,
      responses: { 201: { description: 'created article', schema: ArticleResponse, headers: ['Location'] }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler({ caller, params, body }, services) {
      const created = await services.authoring.knowledge.createArticle(caller, params.baseId, { title: body.title, draftBody: body.draftBody ?? null });
      return { status: 201, headers: { location: `${BASE}/articles/${created.id}` }, body: created };
    },
  }),
  authoringRoute({
    method: 'GET',
    path: `${BASE}/articles/:articleId`,
    doc: authoringDoc({
      operationId: 'getArticle',
      summary: 'One article: draft and published text. Requires manage_knowledge over its base.',
      responses: { 200: { description: 'article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.knowledge.readArticle(caller, params.articleId) }),
  }),
  authoringRoute({
    method: 'PATCH',
    path: `${BASE}/articles/:articleId`,
    bodyLimit: ARTICLE_BODY_LIMIT,
    doc: authoringDoc({
      operationId: 'updateArticle',
      summary: 'Edit an article\'s draft (title, draftBody); agents keep searching the published text until the next publish.',
      body: UpdateArticleBody,
      responses: { 200: { description: 'article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params, body }, services) => ({ status: 200, body: await services.authoring.knowledge.updateArticle(caller, params.articleId, body) }),
  }),
  authoringRoute({
    method: 'POST',
    path: `${BASE}/articles/:articleId/publish`,
    allowEmptyBody: true,
    doc: authoringDoc({
      operationId: 'publishArticle',
      summary: 'Publish the article\'s current draft: agents\' knowledge.search finds it from now on (full-text indexed).',
      body: EmptyBody,
      responses: { 200: { description: 'published article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler: async ({ caller, params }, services) => ({ status: 200, body: await services.authoring.knowledge.publishArticle(caller, params.articleId) }),
  }),
];
