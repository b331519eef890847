// Shared fixtures for manifest tests: the contract example, a test key ring, and a row count of every table.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createKeyRing, type KeyRing } from '../../../runtime/vault/key-ring.js';
import { EXAMPLE_PATH, exampleWorkspace } from '../../helpers/contract-example.js';
import type { TestStore } from '../../helpers/test-store.js';

export const DEMO_MANIFEST_PATH = fileURLToPath(new URL('../../../examples/demo.workspace.json', import.meta.url));

/** The contract manifest: the repo's verbatim copy (contract-example.test.ts keeps it equal to ../shared's). */
export { EXAMPLE_PATH };

/** A fresh, mutable copy of the contract example. */
export const example = exampleWorkspace;

export function testKeyRing(): KeyRing {
  return createKeyRing([{ keyId: 'test-1', key: randomBytes(32) }]);
}

/** Every table of the store's schema (on SQLite its FTS shadow tables too, not SQLite's own), by name. */
export async function tableNames(db: TestStore): Promise<string[]> {
  return db.engine === 'sqlite'
    ? db.sql.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    : db.sql.column<string>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
}

/** Rows per table, every table of `tableNames`. */
export async function countRows(db: TestStore): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of await tableNames(db)) counts[name] = await db.sql.count(`SELECT count(*) AS n FROM "${name}"`);
  return counts;
}
