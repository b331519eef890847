// Knowledge bases, articles (searched through a tsvector), modules and memberships on PostgreSQL (storage/repos/knowledge.repo.ts, async).
/*
 * Search: where SQLite keeps a contentless FTS5 index beside the table, an article's `published_search` tsvector
 * (GIN-indexed, migration 0040) is written by the same statement that publishes it and cleared by the one that
 * unpublishes it, so each is atomic even on an autocommitting pool. Queries arrive in the FTS5 syntax
 * runtime/knowledge/search-terms.ts builds (quoted terms joined by OR), which websearch_to_tsquery reads the same
 * way: a quoted term is that term, OR is any-of. Ranking is ts_rank, not bm25 (docs/decisions.md).
 */
import type { KnowledgeBase, KnowledgeModule } from '../../records/knowledge.js';
import type { CreatedCursor } from '../../records/paging.js';
import {
  articleFromRow, articleToRow, baseFromRow, baseToRow, moduleArticleFromRow, moduleFromRow, moduleToRow, scoredArticleFromRow, type NewArticle,
} from '../../rows/knowledge.js';
import { CREATION_ORDER, insert, keysetClause, keysetValues, many, one, run, write, type Queryable } from './sql.js';

/** Every article column but the search vector, which no record carries. */
const ARTICLE = 'id, base_id, org_id, title, draft_body, published_body, published_at, created_by, created_at, updated_at';

/** The query parameter `$n` as a tsquery; 'english' stems as FTS5's porter tokenizer does (and drops stop words, which FTS5 keeps). */
const matching = (n: number) => `websearch_to_tsquery('english', $${n})`;
/**
 * ts_rank weights for {D, C, B, A}: the title (A) counts four times the body (B), as bm25(articles_fts, 4.0, 1.0)
 * does on SQLite. Negated so that, as with bm25, lower is better.
 */
const score = (n: number) => `-ts_rank('{0, 0, 0.25, 1}', a.published_search, ${matching(n)})`;

export function createPostgresKnowledgeRepo(q: Queryable) {
  return {
    /** Takes the article out of search (vector cleared); memberships stay. False when it was not published. */
    unpublishArticle: async (id: string, now: number): Promise<boolean> =>
      (await run(
        q,
        'UPDATE articles SET published_body = NULL, published_at = NULL, published_search = NULL, updated_at = $1 WHERE id = $2 AND published_at IS NOT NULL',
        [now, id],
      )) > 0,
    /** One page of a base's articles, oldest first, after `after`; `published` filters when not null. */
    articlesOfBasePage: (baseId: string, published: boolean | null, after: CreatedCursor | null, limit: number) =>
      many(
        q,
        `SELECT ${ARTICLE} FROM articles WHERE base_id = $1 AND ($2::boolean IS NULL OR (published_at IS NOT NULL) = $2)
           AND ${keysetClause(3)}`,
        [baseId, published, ...keysetValues(after, limit)],
        articleFromRow,
      ),
    removeModuleArticle: async (moduleId: string, articleId: string): Promise<boolean> =>
      (await run(q, 'DELETE FROM module_articles WHERE module_id = $1 AND article_id = $2', [moduleId, articleId])) > 0,
    /**
     * Deletes the module and its memberships, and drops it from every agent's module selection, in one statement
     * (a data-modifying CTE): no selection is left pointing at nothing, even outside a unit of work. jsonb's `-`
     * removes every element equal to the id, as the SQLite repository's filter does.
     */
    deleteModule: async (id: string): Promise<boolean> =>
      (await run(
        q,
        `WITH unselected AS (
           UPDATE knowledge_selections SET module_ids = module_ids - $1::text WHERE mode = 'modules' AND module_ids ? $1::text)
         DELETE FROM knowledge_modules WHERE id = $1`,
        [id],
      )) > 0,
    insertBase: (base: KnowledgeBase): Promise<void> => insert(q, 'knowledge_bases', baseToRow(base)),
    updateBase: (id: string, name: string, domainId: string | null): Promise<void> =>
      write(q, 'UPDATE knowledge_bases SET domain_id = $1, name = $2 WHERE id = $3', [domainId, name, id]),
    base: (id: string) => one(q, 'SELECT * FROM knowledge_bases WHERE id = $1', [id], baseFromRow),
    basesOfOrganization: (orgId: string) => many(q, `SELECT * FROM knowledge_bases WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], baseFromRow),
    /** Inserts an unpublished draft (published fields are ignored: use publishArticle). */
    insertArticle: (article: NewArticle): Promise<void> => insert(q, 'articles', articleToRow(article)),
    /** Changes the draft only; readers and the search vector keep seeing the published text. */
    updateArticleDraft: (id: string, title: string, draftBody: string | null, now: number): Promise<void> =>
      write(q, 'UPDATE articles SET title = $1, draft_body = $2, updated_at = $3 WHERE id = $4', [title, draftBody, now, id]),
    /** Publishes the current draft and (re)indexes it (title weighted A, body B); false when there is no such article. */
    publishArticle: async (id: string, now: number): Promise<boolean> =>
      (await run(
        q,
        `UPDATE articles SET published_body = draft_body, published_at = $1, updated_at = $1,
           published_search = setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', coalesce(draft_body, '')), 'B')
         WHERE id = $2`,
        [now, id],
      )) > 0,
    article: (id: string) => one(q, `SELECT ${ARTICLE} FROM articles WHERE id = $1`, [id], articleFromRow),
    articlesOfBase: (baseId: string) => many(q, `SELECT ${ARTICLE} FROM articles WHERE base_id = $1 ${CREATION_ORDER}`, [baseId], articleFromRow),
    /** Deletes the article; its search vector is a column of its row and goes with it. */
    deleteArticle: async (id: string): Promise<boolean> => (await run(q, 'DELETE FROM articles WHERE id = $1', [id])) > 0,
    /** Published articles of an organization matching the query (search-terms.ts syntax), best first, ties by id. */
    matchPublishedArticles: (orgId: string, ftsQuery: string, limit: number) =>
      many(
        q,
        `SELECT ${ARTICLE} FROM articles a WHERE a.published_search @@ ${matching(2)} AND a.org_id = $1 AND a.published_at IS NOT NULL
         ORDER BY ${score(2)}, a.id COLLATE "C" LIMIT $3`,
        [orgId, ftsQuery, limit],
        articleFromRow,
      ),
    insertModule: (module: KnowledgeModule): Promise<void> => insert(q, 'knowledge_modules', moduleToRow(module)),
    updateModule: (module: Pick<KnowledgeModule, 'id' | 'kind' | 'domainId' | 'name' | 'description'>): Promise<void> =>
      write(q, 'UPDATE knowledge_modules SET kind = $1, domain_id = $2, name = $3, description = $4 WHERE id = $5', [
        module.kind,
        module.domainId,
        module.name,
        module.description,
        module.id,
      ]),
    module: (id: string) => one(q, 'SELECT * FROM knowledge_modules WHERE id = $1', [id], moduleFromRow),
    modulesOfOrganization: (orgId: string) => many(q, `SELECT * FROM knowledge_modules WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], moduleFromRow),
    /** Idempotent: adding an existing membership changes nothing; true when a row was added. */
    addModuleArticle: async (moduleId: string, articleId: string, now: number): Promise<boolean> =>
      (await run(
        q,
        'INSERT INTO module_articles (module_id, article_id, created_at) VALUES ($1, $2, $3) ON CONFLICT (module_id, article_id) DO NOTHING',
        [moduleId, articleId, now],
      )) > 0,
    moduleArticleIds: (moduleId: string) =>
      many(q, 'SELECT article_id FROM module_articles WHERE module_id = $1 ORDER BY created_at, article_id COLLATE "C"', [moduleId], (r: { article_id: string }) => r.article_id),
    moduleArticle: (moduleId: string, articleId: string) =>
      one(q, 'SELECT * FROM module_articles WHERE module_id = $1 AND article_id = $2', [moduleId, articleId], moduleArticleFromRow),
    /**
     * Published articles that belong to any of `moduleIds` (and to the organization) matching the query, best score
     * first (title weighted 4:1 over body), ties by id so that a shorter limit is a prefix of a longer one.
     */
    matchPublishedInModules: (orgId: string, moduleIds: readonly string[], ftsQuery: string, limit: number) =>
      many(
        q,
        `SELECT ${ARTICLE}, ${score(2)} AS score FROM articles a
         WHERE a.published_search @@ ${matching(2)} AND a.org_id = $1 AND a.published_at IS NOT NULL
           AND EXISTS (SELECT 1 FROM module_articles m WHERE m.article_id = a.id AND m.module_id = ANY($3::text[]))
         ORDER BY score, a.id COLLATE "C" LIMIT $4`,
        [orgId, ftsQuery, moduleIds, limit],
        scoredArticleFromRow,
      ),
  };
}
