// Knowledge: bases of articles (FTS5-indexed when published), modules, and agents' selections.
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 80,
  name: 'knowledge',
  up(db) {
    db.exec(`
      CREATE TABLE knowledge_bases (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        domain_id TEXT REFERENCES domains(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE articles (
        id TEXT PRIMARY KEY,
        base_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL,
        title TEXT NOT NULL,
        draft_body TEXT,
        published_body TEXT,
        published_at INTEGER,
        created_by TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX articles_base ON articles(base_id);

      -- Full-text index over published article text only (external content: articles).
      CREATE VIRTUAL TABLE articles_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='porter unicode61');

      CREATE TABLE knowledge_modules (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('domain', 'org')),
        domain_id TEXT REFERENCES domains(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        created_at INTEGER NOT NULL,
        CHECK ((kind = 'domain') = (domain_id IS NOT NULL))
      ) STRICT;

      CREATE TABLE module_articles (
        module_id TEXT NOT NULL REFERENCES knowledge_modules(id) ON DELETE CASCADE,
        article_id TEXT NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (module_id, article_id)
      ) STRICT;

      CREATE TABLE knowledge_selections (
        automation_id TEXT PRIMARY KEY REFERENCES automations(id) ON DELETE CASCADE,
        mode TEXT NOT NULL CHECK (mode IN ('none', 'org', 'domain', 'modules')),
        module_ids TEXT NOT NULL DEFAULT '[]'
      ) STRICT;
    `);
  },
};
