// Knowledge: a stable integer key per article for the contentless FTS5 index (articles.id is a UUID text key).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 110,
  name: 'knowledge-rowid',
  up(db) {
    // articles has no INTEGER PRIMARY KEY, so its implicit rowid may change on VACUUM; the FTS rowid needs a
    // key that never moves and is never reused (AUTOINCREMENT), hence this mapping table.
    db.exec(`
      CREATE TABLE article_fts_rows (
        fts_rowid INTEGER PRIMARY KEY AUTOINCREMENT,
        article_id TEXT NOT NULL UNIQUE REFERENCES articles(id) ON DELETE CASCADE
      ) STRICT;

      -- Deleting an article (directly or by cascade) removes its index entry too.
      CREATE TRIGGER article_fts_rows_delete AFTER DELETE ON article_fts_rows BEGIN
        DELETE FROM articles_fts WHERE rowid = old.fts_rowid;
      END;
    `);
  },
};
