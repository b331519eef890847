// Domain records of knowledge: bases, articles (draft and published text), modules and memberships (storage/repos/knowledge.repo.ts).

export type ModuleKind = 'domain' | 'org';

export interface KnowledgeBase {
  id: string;
  orgId: string;
  domainId: string | null;
  name: string;
  createdAt: number;
}

export interface Article {
  id: string;
  baseId: string;
  orgId: string;
  title: string;
  draftBody: string | null;
  /** What readers and the search index see; null until published (and again once unpublished). */
  publishedBody: string | null;
  publishedAt: number | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A search hit: bm25 score, lower is better. */
export interface ScoredArticle extends Article {
  score: number;
}

export interface KnowledgeModule {
  id: string;
  orgId: string;
  kind: ModuleKind;
  domainId: string | null;
  name: string;
  description: string | null;
  createdAt: number;
}

export interface ModuleArticle {
  moduleId: string;
  articleId: string;
  createdAt: number;
}
