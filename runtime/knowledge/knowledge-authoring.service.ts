// Owns authoring knowledge (SPEC "Knowledge resources"): modules, draft articles, publishing (FTS5 index), module membership.
import type { Article, KnowledgeBase, KnowledgeModule, ModuleKind } from '../../storage/records/knowledge.js';
import type { Storage } from '../../storage/port/storage.js';
import {
  domainOf,
  hasKnowledgeAuthority,
  managedBase,
  managedModule,
  requireKnowledgeAuthority,
  type Author,
  type AuthoringRepos,
} from '../authoring/authoring-access.js';
import type { Clock } from '../clock.js';
import { AppError, forbidden, notFound, validation } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { baseFitsModule } from './knowledge-visibility.js';

export interface ModuleView {
  readonly id: string;
  readonly kind: ModuleKind;
  readonly domainId: string | null;
  readonly name: string;
  readonly description: string | null;
}

export interface ModuleDetail extends ModuleView {
  /** Member articles, oldest membership first. */
  readonly articleIds: readonly string[];
}

export interface BaseView {
  readonly id: string;
  readonly domainId: string | null;
  readonly name: string;
}

export interface ArticleView {
  readonly id: string;
  readonly baseId: string;
  readonly title: string;
  readonly draftBody: string | null;
  readonly published: boolean;
  /** The text agents search; null until the first publish. */
  readonly publishedBody: string | null;
  readonly publishedAt: string | null;
}

export interface MembershipView {
  readonly moduleId: string;
  readonly articleId: string;
  readonly createdAt: string;
}

export interface CreateModuleInput {
  readonly kind: ModuleKind;
  readonly domainId?: string;
  readonly name: string;
  readonly description?: string | null;
}

export interface ArticleDraft {
  readonly title?: string;
  readonly draftBody?: string | null;
}

export interface KnowledgeAuthoring {
  createModule(author: Author, input: CreateModuleInput): Promise<ModuleView>;
  listModules(author: Author): Promise<ModuleView[]>;
  readModule(author: Author, moduleId: string): Promise<ModuleDetail>;
  listBases(author: Author): Promise<BaseView[]>;
  createArticle(author: Author, baseId: string, input: { title: string; draftBody: string | null }): Promise<ArticleView>;
  readArticle(author: Author, articleId: string): Promise<ArticleView>;
  updateArticle(author: Author, articleId: string, draft: ArticleDraft): Promise<ArticleView>;
  publishArticle(author: Author, articleId: string): Promise<ArticleView>;
  addToModule(author: Author, moduleId: string, articleId: string): Promise<MembershipView>;
}

export interface KnowledgeAuthoringDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const moduleView = (row: KnowledgeModule): ModuleView => ({
  id: row.id,
  kind: row.kind,
  domainId: row.domainId,
  name: row.name,
  description: row.description,
});

const baseView = (row: KnowledgeBase): BaseView => ({ id: row.id, domainId: row.domainId, name: row.name });

export const articleView = (row: Article): ArticleView => ({
  id: row.id,
  baseId: row.baseId,
  title: row.title,
  draftBody: row.draftBody,
  published: row.publishedAt !== null,
  publishedBody: row.publishedAt === null ? null : row.publishedBody,
  publishedAt: iso(row.publishedAt),
});

/** 409 CONFLICT with a machine-readable reason (docs/decisions.md "Incompatible module membership"). */
const conflict = (reason: 'article_unpublished' | 'already_member' | 'base_not_visible', message: string) =>
  new AppError('CONFLICT', message, { reason });

export function createKnowledgeAuthoring(deps: KnowledgeAuthoringDeps): KnowledgeAuthoring {
  const { repos, writer } = deps.store;
  const { knowledge, tenancy } = repos;

  /** Organization modules are readable by every member; a domain's modules by that domain's members. */
  const canSeeModule = async (author: Author, module: KnowledgeModule) =>
    module.domainId === null || (await tenancy.domainRole(module.domainId, author.userId)) !== null;

  /** An article of the author's organization whose base the author may manage (`from`: the unit's repositories inside one). */
  const managedArticle = async (from: AuthoringRepos, author: Author, articleId: string): Promise<Article> => {
    const article = isUuid(articleId) ? await from.knowledge.article(articleId) : undefined;
    if (article === undefined || article.orgId !== author.orgId) throw notFound();
    const base = await from.knowledge.base(article.baseId);
    if (base === undefined) throw notFound();
    await requireKnowledgeAuthority(from, author, base.domainId);
    return article;
  };

  return {
    async createModule(author, input) {
      if (input.kind === 'domain' && input.domainId === undefined) throw validation('domainId is required for a module of kind "domain".');
      if (input.kind === 'org' && input.domainId !== undefined) throw validation('domainId is not allowed for a module of kind "org".');
      const domainId = input.kind === 'domain' ? (await domainOf(repos, author, input.domainId!)).id : null;
      await requireKnowledgeAuthority(repos, author, domainId);
      const row: KnowledgeModule = {
        id: newId(),
        orgId: author.orgId,
        kind: input.kind,
        domainId,
        name: input.name,
        description: input.description ?? null,
        createdAt: deps.clock.now(),
      };
      await writer.submit(async (tx) => {
        await tx.repos.knowledge.insertModule(row);
      });
      return moduleView(row);
    },

    async listModules(author) {
      const visible: ModuleView[] = [];
      for (const module of await knowledge.modulesOfOrganization(author.orgId)) if (await canSeeModule(author, module)) visible.push(moduleView(module));
      return visible;
    },

    async readModule(author, moduleId) {
      const module = isUuid(moduleId) ? await knowledge.module(moduleId) : undefined;
      if (module === undefined || module.orgId !== author.orgId) throw notFound();
      if (!(await canSeeModule(author, module))) throw forbidden('You are not a member of this module\'s domain.');
      return { ...moduleView(module), articleIds: await knowledge.moduleArticleIds(module.id) };
    },

    async listBases(author) {
      const managed: BaseView[] = [];
      for (const base of await knowledge.basesOfOrganization(author.orgId)) if (await hasKnowledgeAuthority(repos, author, base.domainId)) managed.push(baseView(base));
      return managed;
    },

    async createArticle(author, baseId, input) {
      const base = await managedBase(repos, author, baseId);
      const now = deps.clock.now();
      const row = { id: newId(), baseId: base.id, orgId: author.orgId, title: input.title, draftBody: input.draftBody, createdBy: author.userId, createdAt: now, updatedAt: now };
      await writer.submit(async (tx) => {
        await tx.repos.knowledge.insertArticle(row);
      });
      return articleView({ ...row, publishedBody: null, publishedAt: null });
    },

    async readArticle(author, articleId) {
      return articleView(await managedArticle(repos, author, articleId));
    },

    async updateArticle(author, articleId, draft) {
      return writer.submit(async (tx) => {
        const article = await managedArticle(tx.repos, author, articleId);
        const title = draft.title ?? article.title;
        const body = draft.draftBody === undefined ? article.draftBody : draft.draftBody;
        await tx.repos.knowledge.updateArticleDraft(article.id, title, body, deps.clock.now());
        return articleView((await tx.repos.knowledge.article(article.id))!);
      });
    },

    async publishArticle(author, articleId) {
      return writer.submit(async (tx) => {
        const article = await managedArticle(tx.repos, author, articleId);
        await tx.repos.knowledge.publishArticle(article.id, deps.clock.now());
        return articleView((await tx.repos.knowledge.article(article.id))!);
      });
    },

    async addToModule(author, moduleId, articleId) {
      return writer.submit(async (tx) => {
        const knowledge = tx.repos.knowledge;
        const module = await managedModule(tx.repos, author, moduleId);
        const article = isUuid(articleId) ? await knowledge.article(articleId) : undefined;
        if (article === undefined || article.orgId !== author.orgId) throw notFound();
        if (article.publishedAt === null) throw conflict('article_unpublished', 'Only published articles can join a module; publish the article first.');
        const base = await knowledge.base(article.baseId);
        if (base === undefined || !baseFitsModule(base, module)) {
          throw conflict('base_not_visible', "The article's knowledge base belongs to a domain this module does not serve.");
        }
        const now = deps.clock.now();
        if (!(await knowledge.addModuleArticle(module.id, article.id, now))) throw conflict('already_member', 'The article is already in this module.');
        return { moduleId: module.id, articleId: article.id, createdAt: iso(now)! };
      });
    },
  };
}
