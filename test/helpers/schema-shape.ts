// Describes a schema as comparable lines (tables, columns, keys, indexes, foreign keys, CHECKs) from SQLite or PostgreSQL.
import type pg from 'pg';
import type { SqliteDatabase } from '../../storage/database.js';

/**
 * Engine spellings to one: casts dropped, `x = ANY (ARRAY[a, b])` as `x IN (a, b)`, booleans as 0/1, then no
 * parentheses, spaces or case. Good enough to tell two predicates or CHECKs apart, not a SQL parser.
 */
export function normalizeSql(sql: string): string {
  return sql
    .replace(/::[a-z_]+( [a-z_]+)*(\[\])?/gi, '')
    .replace(/(\w+) = ANY \(ARRAY\[(.*?)\]\)/g, '$1 IN ($2)')
    .replace(/\btrue\b/gi, '1')
    .replace(/\bfalse\b/gi, '0')
    .replace(/[()\s]/g, '')
    .toLowerCase();
}

/** integer / text / blob: the storage class both engines agree on (bigint, integer, boolean are all integers). */
function family(type: string): string {
  const t = type.toLowerCase();
  if (['integer', 'bigint', 'smallint', 'boolean'].includes(t)) return 'integer';
  if (['text', 'json', 'jsonb', 'uuid'].includes(t)) return 'text';
  if (['blob', 'bytea'].includes(t)) return 'blob';
  return t;
}

const column = (table: string, name: string, type: string, notNull: boolean, dflt: string | null) =>
  `column ${table}.${name} ${family(type)}${notNull ? ' not null' : ''}${dflt === null ? '' : ` default ${normalizeSql(dflt)}`}`;

/** Balanced-parenthesis bodies of every CHECK in a CREATE TABLE statement. */
function sqliteChecks(createSql: string): string[] {
  const checks: string[] = [];
  for (const match of createSql.matchAll(/\bCHECK\s*\(/gi)) {
    let depth = 1;
    let i = match.index + match[0].length;
    const start = i;
    for (; depth > 0 && i < createSql.length; i++) depth += createSql[i] === '(' ? 1 : createSql[i] === ')' ? -1 : 0;
    checks.push(createSql.slice(start, i - 1));
  }
  return checks;
}

export function sqliteShape(db: SqliteDatabase): string[] {
  const lines: string[] = [];
  const tables = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string }>;
  for (const { name: table, sql } of tables) {
    lines.push(`table ${table}`);
    const columns = db.prepare(`PRAGMA table_xinfo("${table}")`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number; hidden: number }>;
    // A PRIMARY KEY column is NOT NULL on both engines (SQLite's STRICT tables reject NULL keys).
    for (const c of columns.filter((c) => c.hidden === 0)) lines.push(column(table, c.name, c.type, c.notnull === 1 || c.pk > 0, c.dflt_value));
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    if (pk.length > 0) lines.push(`primary key ${table} (${pk.join(', ')})`);
    for (const check of sqliteChecks(sql)) lines.push(`check ${table} ${normalizeSql(check)}`);
    const indexes = db.prepare(`PRAGMA index_list("${table}")`).all() as Array<{ name: string; unique: number; origin: string; partial: number }>;
    for (const index of indexes.filter((i) => i.origin !== 'pk')) {
      const keys = (db.prepare(`PRAGMA index_xinfo("${index.name}")`).all() as Array<{ key: number; name: string | null; desc: number }>)
        .filter((k) => k.key === 1)
        .map((k) => `${k.name ?? '(expression)'}${k.desc ? ' desc' : ''}`);
      if (index.origin === 'u') {
        lines.push(`unique ${table} (${keys.join(', ')})`);
        continue;
      }
      const createIndex = (db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(index.name) as { sql: string }).sql;
      const where = index.partial ? ` where ${normalizeSql(createIndex.slice(createIndex.search(/\bWHERE\b/i) + 5))}` : '';
      lines.push(`index ${index.name} on ${table}${index.unique ? ' unique' : ''} (${keys.join(', ')})${where}`);
    }
    const fks = db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as Array<{ id: number; table: string; from: string; to: string; on_delete: string }>;
    for (const id of new Set(fks.map((f) => f.id))) {
      const parts = fks.filter((f) => f.id === id);
      lines.push(`foreign key ${table} (${parts.map((f) => f.from).join(', ')}) -> ${parts[0]!.table} (${parts.map((f) => f.to).join(', ')}) on delete ${parts[0]!.on_delete.toLowerCase()}`);
    }
  }
  for (const { name, table } of db.prepare("SELECT name, tbl_name AS 'table' FROM sqlite_schema WHERE type = 'trigger'").all() as Array<{ name: string; table: string }>) {
    lines.push(`trigger ${name} on ${table}`);
  }
  return lines.sort();
}

const ON_DELETE: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

export async function postgresShape(client: Pick<pg.ClientBase, 'query'>): Promise<string[]> {
  const lines: string[] = [];
  const q = async <R extends pg.QueryResultRow>(sql: string) => (await client.query<R>(sql)).rows;
  for (const r of await q<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")) lines.push(`table ${r.name}`);
  const columns = await q<{ t: string; c: string; type: string; nullable: string; dflt: string | null }>(
    `SELECT table_name AS t, column_name AS c, data_type AS type, is_nullable AS nullable, column_default AS dflt
       FROM information_schema.columns WHERE table_schema = 'public'`,
  );
  for (const r of columns) lines.push(column(r.t, r.c, r.type, r.nullable === 'NO', r.dflt));
  const constraints = await q<{ t: string; type: string; def: string; cols: string[]; ftable: string | null; fcols: string[] | null; ondelete: string }>(
    `SELECT c.conrelid::regclass::text AS t, c.contype AS type, pg_get_constraintdef(c.oid, true) AS def, c.confdeltype AS ondelete,
            ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS cols,
            c.confrelid::regclass::text AS ftable,
            ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS fcols
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`,
  );
  for (const r of constraints) {
    if (r.type === 'p') lines.push(`primary key ${r.t} (${r.cols.join(', ')})`);
    else if (r.type === 'u') lines.push(`unique ${r.t} (${r.cols.join(', ')})`);
    else if (r.type === 'c') lines.push(`check ${r.t} ${normalizeSql(r.def.replace(/^CHECK /, ''))}`);
    else if (r.type === 'f') lines.push(`foreign key ${r.t} (${r.cols.join(', ')}) -> ${r.ftable} (${r.fcols!.join(', ')}) on delete ${ON_DELETE[r.ondelete]}`);
  }
  // Indexes that no constraint owns (constraint-backed ones are the primary key and unique lines above).
  const indexes = await q<{ name: string; t: string; unique: boolean; method: string; keys: string[]; pred: string | null }>(
    `SELECT ic.relname AS name, tc.relname AS t, i.indisunique AS unique, am.amname AS method,
            ARRAY(SELECT replace(pg_get_indexdef(i.indexrelid, k, true), '"', '') || CASE WHEN i.indoption[k - 1] & 1 = 1 THEN ' desc' ELSE '' END
                    FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS keys,
            pg_get_expr(i.indpred, i.indrelid, true) AS pred
       FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = tc.relnamespace JOIN pg_am am ON am.oid = ic.relam
      WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
  );
  for (const r of indexes) {
    const using = r.method === 'btree' ? '' : ` using ${r.method}`;
    lines.push(`index ${r.name} on ${r.t}${r.unique ? ' unique' : ''}${using} (${r.keys.join(', ')})${r.pred === null ? '' : ` where ${normalizeSql(r.pred)}`}`);
  }
  for (const r of await q<{ name: string; t: string }>(
    `SELECT tg.tgname AS name, c.relname AS t FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT tg.tgisinternal`,
  )) lines.push(`trigger ${r.name} on ${r.t}`);
  return lines.sort();
}
