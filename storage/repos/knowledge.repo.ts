// Knowledge bases, articles (published text kept in the FTS5 index), modules and their article memberships.
import type { SqliteDatabase } from '../database.js';
import type { KnowledgeBase, KnowledgeModule } from '../records/knowledge.js';
import type { CreatedCursor } from '../records/paging.js';
import { keysetAfter, keysetAfterParams } from './keyset.js';
import { mapOptional } from '../row-mapping.js';
import {
  articleFromRow, articleToRow, baseFromRow, baseToRow, moduleArticleFromRow, moduleFromRow, moduleToRow, scoredArticleFromRow,
  type ArticleRow, type KnowledgeBaseRow, type KnowledgeModuleRow, type NewArticle,
} from '../rows/knowledge.js';

export type { ModuleKind } from '../records/knowledge.js';


export function createKnowledgeRepo(db: SqliteDatabase) {
  const s = {
    insertBase: db.prepare(
      'INSERT INTO knowledge_bases (id, org_id, domain_id, name, created_at) VALUES (@id, @org_id, @domain_id, @name, @created_at)',
    ),
    updateBase: db.prepare('UPDATE knowledge_bases SET domain_id = ?, name = ? WHERE id = ?'),
    base: db.prepare('SELECT * FROM knowledge_bases WHERE id = ?'),
    basesOfOrg: db.prepare('SELECT * FROM knowledge_bases WHERE org_id = ? ORDER BY created_at, id'),
    insertArticle: db.prepare(
      `INSERT INTO articles (id, base_id, org_id, title, draft_body, published_body, published_at, created_by, created_at, updated_at)
       VALUES (@id, @base_id, @org_id, @title, @draft_body, @published_body, @published_at, @created_by, @created_at, @updated_at)`,
    ),
    updateDraft: db.prepare('UPDATE articles SET title = ?, draft_body = ?, updated_at = ? WHERE id = ?'),
    publish: db.prepare('UPDATE articles SET published_body = draft_body, published_at = ?, updated_at = ? WHERE id = ?'),
    article: db.prepare('SELECT * FROM articles WHERE id = ?'),
    articlesOfBase: db.prepare('SELECT * FROM articles WHERE base_id = ? ORDER BY created_at, id'),
    deleteArticle: db.prepare('DELETE FROM articles WHERE id = ?'),
    unpublish: db.prepare('UPDATE articles SET published_body = NULL, published_at = NULL, updated_at = ? WHERE id = ? AND published_at IS NOT NULL'),
    articlesOfBasePage: db.prepare(
      `SELECT * FROM articles WHERE base_id = @base AND (@published IS NULL OR (published_at IS NOT NULL) = @published)
         AND ${keysetAfter()}`,
    ),
    removeMember: db.prepare('DELETE FROM module_articles WHERE module_id = ? AND article_id = ?'),
    deleteModule: db.prepare('DELETE FROM knowledge_modules WHERE id = ?'),
    selectionsNaming: db.prepare("SELECT * FROM knowledge_selections WHERE mode = 'modules' AND EXISTS (SELECT 1 FROM json_each(module_ids) WHERE value = ?)"),
    setSelectionModules: db.prepare('UPDATE knowledge_selections SET module_ids = ? WHERE automation_id = ?'),
    claimFtsRow: db.prepare('INSERT INTO article_fts_rows (article_id) VALUES (?) ON CONFLICT (article_id) DO NOTHING'),
    ftsRowid: db.prepare('SELECT fts_rowid FROM article_fts_rows WHERE article_id = ?'),
    ftsDelete: db.prepare('DELETE FROM articles_fts WHERE rowid = ?'),
    ftsInsert: db.prepare('INSERT INTO articles_fts (rowid, title, body) VALUES (?, ?, ?)'),
    match: db.prepare(
      `SELECT a.* FROM articles_fts f
         JOIN article_fts_rows r ON r.fts_rowid = f.rowid
         JOIN articles a ON a.id = r.article_id
       WHERE articles_fts MATCH ? AND a.org_id = ? AND a.published_at IS NOT NULL
       ORDER BY f.rank LIMIT ?`,
    ),
    insertModule: db.prepare(
      `INSERT INTO knowledge_modules (id, org_id, kind, domain_id, name, description, created_at)
       VALUES (@id, @org_id, @kind, @domain_id, @name, @description, @created_at)`,
    ),
    updateModule: db.prepare('UPDATE knowledge_modules SET kind = @kind, domain_id = @domain_id, name = @name, description = @description WHERE id = @id'),
    module: db.prepare('SELECT * FROM knowledge_modules WHERE id = ?'),
    modulesOfOrg: db.prepare('SELECT * FROM knowledge_modules WHERE org_id = ? ORDER BY created_at, id'),
    addMember: db.prepare(
      'INSERT INTO module_articles (module_id, article_id, created_at) VALUES (?, ?, ?) ON CONFLICT (module_id, article_id) DO NOTHING',
    ),
    members: db.prepare('SELECT article_id FROM module_articles WHERE module_id = ? ORDER BY created_at, article_id'),
    membership: db.prepare('SELECT * FROM module_articles WHERE module_id = ? AND article_id = ?'),
    // bm25 with the title weighted above the body; lower is better, so ascending order is best first. Ties by id: a
    // shorter limit is then a prefix of a longer one (the knowledge tool reuses a run's prompt hits on that basis).
    // Membership is an EXISTS per matched article: written as `a.id IN (module's articles)` the planner looked each
    // match's mapping row up once per article of the module (matches x module size: 34 ms at 500 articles, not 2).
    matchInModules: db.prepare(
      `SELECT a.*, bm25(articles_fts, 4.0, 1.0) AS score FROM articles_fts f
         JOIN article_fts_rows r ON r.fts_rowid = f.rowid
         JOIN articles a ON a.id = r.article_id
       WHERE articles_fts MATCH ? AND a.org_id = ? AND a.published_at IS NOT NULL
         AND EXISTS (SELECT 1 FROM module_articles m WHERE m.article_id = a.id AND m.module_id IN (SELECT value FROM json_each(?)))
       ORDER BY score, a.id LIMIT ?`,
    ),
  };

  // The index is contentless: it holds only what publish put there, keyed by the stable article_fts_rows id.
  const publishArticle = db.transaction((id: string, now: number): boolean => {
    if (s.publish.run(now, now, id).changes === 0) return false;
    const article = s.article.get(id) as ArticleRow;
    s.claimFtsRow.run(id);
    const { fts_rowid } = s.ftsRowid.get(id) as { fts_rowid: number };
    s.ftsDelete.run(fts_rowid);
    s.ftsInsert.run(fts_rowid, article.title, article.published_body ?? '');
    return true;
  });

  // The contentless index keeps what publish put there until its row is deleted: unpublishing removes it too.
  const unpublishArticle = db.transaction((id: string, now: number): boolean => {
    if (s.unpublish.run(now, id).changes === 0) return false;
    const row = s.ftsRowid.get(id) as { fts_rowid: number } | undefined;
    if (row !== undefined) s.ftsDelete.run(row.fts_rowid);
    return true;
  });

  // Agents selecting the module stop naming it in the same transaction, so no selection points at nothing.
  const deleteModule = db.transaction((id: string): boolean => {
    for (const selection of s.selectionsNaming.all(id) as Array<{ automation_id: string; module_ids: string }>) {
      const kept = (JSON.parse(selection.module_ids) as string[]).filter((moduleId) => moduleId !== id);
      s.setSelectionModules.run(JSON.stringify(kept), selection.automation_id);
    }
    return s.deleteModule.run(id).changes > 0;
  });

  return {
    /** Takes the article out of search (index entry removed); memberships stay. False when it was not published. */
    unpublishArticle: (id: string, now: number): boolean => unpublishArticle(id, now),
    /** One page of a base's articles, oldest first, after `after`; `published` filters when not null. */
    articlesOfBasePage: (baseId: string, published: boolean | null, after: CreatedCursor | null, limit: number) =>
      (s.articlesOfBasePage.all({
        base: baseId,
        published: published === null ? null : Number(published),
        ...keysetAfterParams(after, limit),
      }) as ArticleRow[]).map(articleFromRow),
    removeModuleArticle: (moduleId: string, articleId: string): boolean => s.removeMember.run(moduleId, articleId).changes > 0,
    /** Deletes the module and its memberships, and drops it from every agent's module selection. */
    deleteModule: (id: string): boolean => deleteModule(id),
    insertBase: (base: KnowledgeBase): void => void s.insertBase.run(baseToRow(base)),
    updateBase: (id: string, name: string, domainId: string | null): void => void s.updateBase.run(domainId, name, id),
    base: (id: string) => mapOptional(s.base.get(id), baseFromRow),
    basesOfOrganization: (orgId: string) => (s.basesOfOrg.all(orgId) as KnowledgeBaseRow[]).map(baseFromRow),
    /** Inserts an unpublished draft (published fields are ignored: use publishArticle). */
    insertArticle: (article: NewArticle): void => void s.insertArticle.run(articleToRow(article)),
    /** Changes the draft only; readers and the index keep seeing the published text. */
    updateArticleDraft: (id: string, title: string, draftBody: string | null, now: number): void =>
      void s.updateDraft.run(title, draftBody, now, id),
    /** Publishes the current draft and (re)indexes it; false when there is no such article. */
    publishArticle: (id: string, now: number): boolean => publishArticle(id, now),
    article: (id: string) => mapOptional(s.article.get(id), articleFromRow),
    articlesOfBase: (baseId: string) => (s.articlesOfBase.all(baseId) as ArticleRow[]).map(articleFromRow),
    /** Deletes the article; its index entry goes with it (trigger on article_fts_rows). */
    deleteArticle: (id: string): boolean => s.deleteArticle.run(id).changes > 0,
    /** Published articles of an organization matching an FTS5 query (the caller quotes user text), best first. */
    matchPublishedArticles: (orgId: string, ftsQuery: string, limit: number) => (s.match.all(ftsQuery, orgId, limit) as ArticleRow[]).map(articleFromRow),
    insertModule: (module: KnowledgeModule): void => void s.insertModule.run(moduleToRow(module)),
    updateModule: (module: Pick<KnowledgeModule, 'id' | 'kind' | 'domainId' | 'name' | 'description'>): void =>
      void s.updateModule.run({ id: module.id, kind: module.kind, domain_id: module.domainId, name: module.name, description: module.description }),
    module: (id: string) => mapOptional(s.module.get(id), moduleFromRow),
    modulesOfOrganization: (orgId: string) => (s.modulesOfOrg.all(orgId) as KnowledgeModuleRow[]).map(moduleFromRow),
    /** Idempotent: adding an existing membership changes nothing; true when a row was added. */
    addModuleArticle: (moduleId: string, articleId: string, now: number): boolean => s.addMember.run(moduleId, articleId, now).changes > 0,
    moduleArticleIds: (moduleId: string) => (s.members.all(moduleId) as Array<{ article_id: string }>).map((r) => r.article_id),
    moduleArticle: (moduleId: string, articleId: string) => mapOptional(s.membership.get(moduleId, articleId), moduleArticleFromRow),
    /**
     * Published articles that belong to any of `moduleIds` (and to the organization) matching an FTS5 query, best
     * bm25 score first (title weighted 4:1 over body). The caller builds the query from quoted terms only.
     */
    matchPublishedInModules: (orgId: string, moduleIds: readonly string[], ftsQuery: string, limit: number) =>
      (s.matchInModules.all(ftsQuery, orgId, JSON.stringify(moduleIds), limit) as Array<ArticleRow & { score: number }>).map(scoredArticleFromRow),
  };
}

export type KnowledgeRepo = ReturnType<typeof createKnowledgeRepo>;
