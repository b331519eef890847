// Shared fixtures for manifest tests: the contract example, a test key ring, and a row count of every table.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SqliteDatabase } from '../../../storage/database.js';
import { createKeyRing, type KeyRing } from '../../../runtime/vault/key-ring.js';

const SHARED_EXAMPLE = fileURLToPath(new URL('../../../../shared/examples/workspace.json', import.meta.url));
const LOCAL_EXAMPLE = fileURLToPath(new URL('../../../examples/workspace.json', import.meta.url));
export const DEMO_MANIFEST_PATH = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));

/** The contract manifest (../shared/examples/workspace.json; the repo's verbatim copy when ../shared is absent). */
export const EXAMPLE_PATH = existsSync(SHARED_EXAMPLE) ? SHARED_EXAMPLE : LOCAL_EXAMPLE;

/** A fresh, mutable copy of the contract example. */
export function example(): any {
  return JSON.parse(readFileSync(EXAMPLE_PATH, 'utf8'));
}

export function testKeyRing(): KeyRing {
  return createKeyRing([{ keyId: 'test-1', key: randomBytes(32) }]);
}

/** Rows per table, every table (FTS shadow tables included) except SQLite's own. */
export function countRows(db: SqliteDatabase): Record<string, number> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
  return counts;
}
