// Owns knowledge clean-up: list a base's articles, unpublish and delete articles, remove memberships, delete modules.
/*
 * Authority is the authoring one (runtime/authoring/authoring-access.ts): manage_knowledge in the base's or
 * module's domain, organization Owner/Admin for organization-wide knowledge. Unpublishing takes the article out
 * of search at once (its index entry is removed) and keeps its module memberships: search reads published
 * articles only, and publishing again brings it back where it was (docs/decisions.md "Unpublished articles").
 */
import type { Article } from '../../storage/records/knowledge.js';
import type { Storage } from '../../storage/port/storage.js';
import { managedBase, managedModule, requireKnowledgeAuthority, type Author, type AuthoringRepos } from '../authoring/authoring-access.js';
import { toIso, type Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { articleView, type ArticleView } from '../knowledge/knowledge-authoring.service.js';
import { byCreation, keysetPage } from '../paging/keyset-page.js';

/** A list entry: no bodies (a draft holds up to 2,000,000 characters); GET the article for them. */
export interface ArticleSummary {
  id: string;
  baseId: string;
  title: string;
  published: boolean;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface KnowledgeManager {
  listArticles(
    author: Author,
    baseId: string,
    query: { published?: boolean; limit: number; cursor?: string },
  ): Promise<{ articles: ArticleSummary[]; nextCursor: string | null }>;
  unpublishArticle(author: Author, articleId: string): Promise<ArticleView>;
  deleteArticle(author: Author, articleId: string): Promise<void>;
  removeFromModule(author: Author, moduleId: string, articleId: string): Promise<void>;
  deleteModule(author: Author, moduleId: string): Promise<void>;
}

const summary = (row: Article): ArticleSummary => ({
  id: row.id,
  baseId: row.baseId,
  title: row.title,
  published: row.publishedAt !== null,
  publishedAt: row.publishedAt === null ? null : toIso(row.publishedAt),
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

export function createKnowledgeManager(deps: { store: Storage; clock: Clock }): KnowledgeManager {
  const { store, clock } = deps;
  const { repos } = store;
  const { knowledge } = repos;

  /** An article of the author's organization whose base the author may manage (else 404 / 403); `from`: the unit's repositories. */
  const managedArticle = async (from: AuthoringRepos, author: Author, articleId: string): Promise<Article> => {
    const article = isUuid(articleId) ? await from.knowledge.article(articleId.toLowerCase()) : undefined;
    if (article === undefined || article.orgId !== author.orgId) throw notFound();
    const base = await from.knowledge.base(article.baseId);
    if (base === undefined) throw notFound();
    await requireKnowledgeAuthority(from, author, base.domainId);
    return article;
  };

  return {
    async listArticles(author, baseId, query) {
      const base = await managedBase(repos, author, baseId);
      const page = await keysetPage(
        query.cursor,
        query.limit,
        (after, n) => knowledge.articlesOfBasePage(base.id, query.published ?? null, after, n),
        byCreation,
      );
      return { articles: page.rows.map(summary), nextCursor: page.nextCursor };
    },

    unpublishArticle(author, articleId) {
      return store.writer.submit(async (tx) => {
        const article = await managedArticle(tx.repos, author, articleId);
        // Idempotent: unpublishing a draft-only article changes nothing.
        await tx.repos.knowledge.unpublishArticle(article.id, clock.now());
        return articleView((await tx.repos.knowledge.article(article.id))!);
      });
    },

    async deleteArticle(author, articleId) {
      await store.writer.submit(async (tx) => {
        // Memberships and the index entry cascade with the row (migrations 0080, 0110).
        await tx.repos.knowledge.deleteArticle((await managedArticle(tx.repos, author, articleId)).id);
      });
    },

    async removeFromModule(author, moduleId, articleId) {
      await store.writer.submit(async (tx) => {
        const module = await managedModule(tx.repos, author, moduleId);
        if (!isUuid(articleId) || !(await tx.repos.knowledge.removeModuleArticle(module.id, articleId.toLowerCase()))) throw notFound();
      });
    },

    async deleteModule(author, moduleId) {
      await store.writer.submit(async (tx) => {
        await tx.repos.knowledge.deleteModule((await managedModule(tx.repos, author, moduleId)).id);
      });
    },
  };
}
