// Row shapes of knowledge bases, articles, modules and memberships and their record mappings, shared by both drivers.
// Row shapes are `type` aliases, not interfaces, so they fit sql.ts's `insert(q, table, row: Record<string, unknown>)`.
/*
 * No codec needed: every column is text or an epoch-ms number. The search index is not part of a row: FTS5's
 * contentless table on SQLite, the `published_search` tsvector on PostgreSQL (never selected).
 */
import type { Article, KnowledgeBase, KnowledgeModule, ModuleArticle, ModuleKind, ScoredArticle } from '../records/knowledge.js';

export type KnowledgeBaseRow = {
  id: string;
  org_id: string;
  domain_id: string | null;
  name: string;
  created_at: number;
};

export type ArticleRow = {
  id: string;
  base_id: string;
  org_id: string;
  title: string;
  draft_body: string | null;
  published_body: string | null;
  published_at: number | null;
  created_by: string | null;
  created_at: number;
  updated_at: number;
};

export type KnowledgeModuleRow = {
  id: string;
  org_id: string;
  kind: ModuleKind;
  domain_id: string | null;
  name: string;
  description: string | null;
  created_at: number;
};

export type ModuleArticleRow = {
  module_id: string;
  article_id: string;
  created_at: number;
};

/** An article as inserted: published fields come only from publishArticle. */
export type NewArticle = Omit<Article, 'publishedBody' | 'publishedAt'>;

export const baseFromRow = (r: KnowledgeBaseRow): KnowledgeBase => ({
  id: r.id,
  orgId: r.org_id,
  domainId: r.domain_id,
  name: r.name,
  createdAt: r.created_at,
});

export const baseToRow = (b: KnowledgeBase): KnowledgeBaseRow => ({
  id: b.id,
  org_id: b.orgId,
  domain_id: b.domainId,
  name: b.name,
  created_at: b.createdAt,
});

export const articleFromRow = (r: ArticleRow): Article => ({
  id: r.id,
  baseId: r.base_id,
  orgId: r.org_id,
  title: r.title,
  draftBody: r.draft_body,
  publishedBody: r.published_body,
  publishedAt: r.published_at,
  createdBy: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The insert's columns: a new article is an unpublished draft, whatever its published fields say. */
export const articleToRow = (a: NewArticle): ArticleRow => ({
  id: a.id,
  base_id: a.baseId,
  org_id: a.orgId,
  title: a.title,
  draft_body: a.draftBody,
  published_body: null,
  published_at: null,
  created_by: a.createdBy,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

export const scoredArticleFromRow = (r: ArticleRow & { score: number }): ScoredArticle => ({ ...articleFromRow(r), score: r.score });

export const moduleFromRow = (r: KnowledgeModuleRow): KnowledgeModule => ({
  id: r.id,
  orgId: r.org_id,
  kind: r.kind,
  domainId: r.domain_id,
  name: r.name,
  description: r.description,
  createdAt: r.created_at,
});

export const moduleToRow = (m: KnowledgeModule): KnowledgeModuleRow => ({
  id: m.id,
  org_id: m.orgId,
  kind: m.kind,
  domain_id: m.domainId,
  name: m.name,
  description: m.description,
  created_at: m.createdAt,
});

export const moduleArticleFromRow = (r: ModuleArticleRow): ModuleArticle => ({ moduleId: r.module_id, articleId: r.article_id, createdAt: r.created_at });
