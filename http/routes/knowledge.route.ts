// Knowledge authoring routes (SPEC "Authoring", "Knowledge resources"): modules, articles, membership, agent selection.
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { parseBody } from '../validate.js';
import { authorOf, authoringDoc } from './authoring.route.js';
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
  {
    method: 'PUT',
    path: `${BASE}/automations/:id/knowledge-selection`,
    doc: authoringDoc({
      summary: 'Choose the knowledge an agent searches: none, org, domain, or listed modules (answer normalized and deduplicated). Requires manage_knowledge.',
      body: SelectionBody,
      responses: { 200: { description: 'the stored selection', schema: SelectionResponse }, 403: { description: 'FORBIDDEN: no manage_knowledge in the domain' } },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      const body = parseBody(request, SelectionBody);
      return { status: 200, body: await services.authoring.selections.set(author, request.params.id, body) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/automations/:id/knowledge-selection`,
    doc: authoringDoc({
      summary: 'The agent\'s knowledge selection (mode none when never set). Requires manage_knowledge.',
      responses: { 200: { description: 'selection', schema: SelectionResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler(request, services) {
      const author = authorOf(request, services);
      return { status: 200, body: services.authoring.selections.read(author, request.params.id) };
    },
  },
  {
    method: 'POST',
    path: `${BASE}/knowledge-modules`,
    doc: authoringDoc({
      summary: 'Create a knowledge module: kind domain (domainId required; manage_knowledge there) or org (no domainId; organization owner/admin).',
      body: CreateModuleBody,
      responses: { 201: { description: 'created module', schema: ModuleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      const body = parseBody(request, CreateModuleBody);
      const created = await services.authoring.knowledge.createModule(author, body);
      return { status: 201, headers: { location: `${BASE}/knowledge-modules/${created.id}` }, body: created };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/knowledge-modules`,
    doc: authoringDoc({
      summary: 'Knowledge modules the caller can see: the organization\'s and those of domains the caller belongs to.',
      responses: { 200: { description: 'modules', schema: ModuleListResponse } },
    }),
    handler(request, services) {
      const author = authorOf(request, services);
      return { status: 200, body: { modules: services.authoring.knowledge.listModules(author) } };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/knowledge-modules/:moduleId`,
    doc: authoringDoc({
      summary: 'One knowledge module with its member article ids.',
      responses: { 200: { description: 'module', schema: ModuleDetailResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler(request, services) {
      const author = authorOf(request, services);
      return { status: 200, body: services.authoring.knowledge.readModule(author, request.params.moduleId) };
    },
  },
  {
    method: 'POST',
    path: `${BASE}/knowledge-modules/:moduleId/articles`,
    doc: authoringDoc({
      summary: 'Add a published article to a module. 409 CONFLICT (details.reason): article_unpublished, already_member, base_not_visible.',
      body: MembershipBody,
      responses: {
        201: { description: 'membership row', schema: MembershipResponse },
        403: { description: 'FORBIDDEN' },
        409: { description: 'CONFLICT: unpublished article or incompatible membership' },
      },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      const body = parseBody(request, MembershipBody);
      return { status: 201, body: await services.authoring.knowledge.addToModule(author, request.params.moduleId, body.articleId) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/knowledge-bases`,
    doc: authoringDoc({
      summary: 'Knowledge bases the caller may write articles in (domain bases: manage_knowledge; organization-wide: owner/admin).',
      responses: { 200: { description: 'bases', schema: BaseListResponse } },
    }),
    handler(request, services) {
      const author = authorOf(request, services);
      return { status: 200, body: { bases: services.authoring.knowledge.listBases(author) } };
    },
  },
  {
    method: 'POST',
    path: `${BASE}/knowledge-bases/:baseId/articles`,
    bodyLimit: ARTICLE_BODY_LIMIT,
    doc: authoringDoc({
      summary: 'Create an article as an unpublished draft (title 1–240, draftBody up to 2,000,000 characters). Requires manage_knowledge.',
      body: CreateArticleBody,
      responses: { 201: { description: 'created article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      const body = parseBody(request, CreateArticleBody);
      const created = await services.authoring.knowledge.createArticle(author, request.params.baseId, { title: body.title, draftBody: body.draftBody ?? null });
      return { status: 201, headers: { location: `${BASE}/articles/${created.id}` }, body: created };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/articles/:articleId`,
    doc: authoringDoc({
      summary: 'One article: draft and published text. Requires manage_knowledge over its base.',
      responses: { 200: { description: 'article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    handler(request, services) {
      const author = authorOf(request, services);
      return { status: 200, body: services.authoring.knowledge.readArticle(author, request.params.articleId) };
    },
  },
  {
    method: 'PATCH',
    path: `${BASE}/articles/:articleId`,
    bodyLimit: ARTICLE_BODY_LIMIT,
    doc: authoringDoc({
      summary: 'Edit an article\'s draft (title, draftBody); agents keep searching the published text until the next publish.',
      body: UpdateArticleBody,
      responses: { 200: { description: 'article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      const body = parseBody(request, UpdateArticleBody);
      return { status: 200, body: await services.authoring.knowledge.updateArticle(author, request.params.articleId, body) };
    },
  },
  {
    method: 'POST',
    path: `${BASE}/articles/:articleId/publish`,
    doc: authoringDoc({
      summary: 'Publish the article\'s current draft: agents\' knowledge.search finds it from now on (full-text indexed).',
      body: EmptyBody,
      responses: { 200: { description: 'published article', schema: ArticleResponse }, 403: { description: 'FORBIDDEN' } },
    }),
    async handler(request, services) {
      const author = authorOf(request, services);
      parseBody(request, EmptyBody, { allowEmpty: true });
      return { status: 200, body: await services.authoring.knowledge.publishArticle(author, request.params.articleId) };
    },
  },
];
