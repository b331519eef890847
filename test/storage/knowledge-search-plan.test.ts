// knowledge.search's bm25 query costs its matches, not matches x module size: each match's rows are found by key.
import t from 'tap';
import type { SqliteDatabase } from '../../storage/database.js';
import { createKnowledgeRepo } from '../../storage/repos/knowledge.repo.js';
import { openStore } from '../../storage/store.js';

/** The SQL of the module search, as the repository prepares it. */
function moduleSearchSql(db: SqliteDatabase): string {
  const sources: string[] = [];
  const recording = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') return (sql: string) => (sources.push(sql), target.prepare(sql));
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  createKnowledgeRepo(recording);
  const found = sources.filter((sql) => sql.includes('bm25(') && sql.includes('module_articles'));
  if (found.length !== 1) throw new Error(`expected one module search statement, found ${found.length}`);
  return found[0];
}

t.test('the module search finds each match\'s mapping row by rowid, never once per article of the module', async (t) => {
  const store = openStore({ path: ':memory:' });
  t.teardown(() => store.close());
  const { db, repos } = store;
  db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org', 'Org', 0)").run();
  repos.knowledge.insertBase({ id: 'base', orgId: 'org', domainId: null, name: 'Base', createdAt: 0 });
  repos.knowledge.insertModule({ id: 'mod', orgId: 'org', kind: 'org', domainId: null, name: 'Module', description: null, createdAt: 0 });
  // Every article matches and belongs to the module (with statistics): the shape where `a.id IN (module's articles)`
  // made the planner look each match's mapping row up once per article of the module (34 ms at 500 articles).
  db.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const id = `a${String(i).padStart(4, '0')}`;
      repos.knowledge.insertArticle({ id, baseId: 'base', orgId: 'org', title: `Article ${i}`, draftBody: `Pricing notes ${i}.`, createdBy: null, createdAt: 0, updatedAt: 0 });
      repos.knowledge.publishArticle(id, 1);
      repos.knowledge.addModuleArticle('mod', id, 0);
    }
  })();
  db.exec('ANALYZE');

  const sql = moduleSearchSql(db);
  const args = ['"pricing" OR "notes"', 'org', JSON.stringify(['mod']), 5];
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((row) => row.detail);
  const shown = plan.join(' | ');
  t.ok(plan.some((d) => /^SEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(d)), `the mapping row by the match's rowid: ${shown}`);
  t.ok(plan.some((d) => /^SEARCH a USING INDEX sqlite_autoindex_articles_1 \(id=\?\)/.test(d)), `the article by id: ${shown}`);
  t.notOk(plan.some((d) => /^SEARCH r .*article_id=\?/.test(d)), 'never the mapping row by article id (one lookup per module article)');
  t.equal(repos.knowledge.matchPublishedInModules('org', ['mod'], '"pricing"', 5).length, 5, 'the search answers');
});
