// Shared fixtures for manifest tests: the contract example, a test key ring, and a row count of every table.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { SqliteDatabase } from '../../../storage/database.js';
import { createKeyRing, type KeyRing } from '../../../runtime/vault/key-ring.js';
import { EXAMPLE_PATH, exampleWorkspace } from '../../helpers/contract-example.js';

export const DEMO_MANIFEST_PATH = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));

/** The contract manifest: the repo's verbatim copy (contract-example.test.ts keeps it equal to ../shared's). */
export { EXAMPLE_PATH };

/** A fresh, mutable copy of the contract example. */
export const example = exampleWorkspace;

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
