// Knowledge bases, articles (a tsvector + GIN index where SQLite has FTS5), modules and agents' selections (SQLite 0080, 0110, 0180).
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 40,
  name: 'knowledge',
  async up(tx) {
    await tx.query(`
      CREATE TABLE knowledge_bases (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id text REFERENCES domains(id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at bigint NOT NULL
      );

      -- published_search replaces SQLite's contentless articles_fts and its article_fts_rows key map: publish writes
      -- it from the title and body it publishes (title weighted A, body B, as bm25 weights the title 4:1 there),
      -- unpublish clears it, and a deleted article takes it along. The 'english' configuration stems like FTS5's
      -- porter tokenizer (and also drops English stop words, which FTS5 keeps).
      CREATE TABLE articles (
        id text PRIMARY KEY,
        base_id text NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        org_id text NOT NULL,
        title text NOT NULL,
        draft_body text,
        published_body text,
        published_at bigint,
        created_by text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        published_search tsvector,
        CHECK (published_search IS NULL OR published_at IS NOT NULL)
      );
      CREATE INDEX articles_base ON articles (base_id);
      CREATE INDEX articles_base_created ON articles (base_id, created_at, id);
      CREATE INDEX articles_search ON articles USING gin (published_search);

      CREATE TABLE knowledge_modules (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('domain', 'org')),
        domain_id text REFERENCES domains(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        created_at bigint NOT NULL,
        CHECK ((kind = 'domain') = (domain_id IS NOT NULL))
      );

      CREATE TABLE module_articles (
        module_id text NOT NULL REFERENCES knowledge_modules(id) ON DELETE CASCADE,
        article_id text NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        PRIMARY KEY (module_id, article_id)
      );

      CREATE TABLE knowledge_selections (
        automation_id text PRIMARY KEY REFERENCES automations(id) ON DELETE CASCADE,
        mode text NOT NULL CHECK (mode IN ('none', 'org', 'domain', 'modules')),
        module_ids jsonb NOT NULL DEFAULT '[]'
      );
    `);
  },
};
