// Gives the child processes a test starts one set of master keys (they inherit process.env), restored at teardown.
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';

/**
 * Nodes on one database must share the master keys (a secret sealed by one is opened by another), and a child
 * without keys would generate a key file in its working directory (the repository root, for these tests).
 */
export function useSharedMasterKeys(t: Test): void {
  const previous = process.env.SWITCHYARD_MASTER_KEYS;
  process.env.SWITCHYARD_MASTER_KEYS = `k1:${randomBytes(32).toString('base64')}`;
  t.teardown(() => {
    if (previous === undefined) delete process.env.SWITCHYARD_MASTER_KEYS;
    else process.env.SWITCHYARD_MASTER_KEYS = previous;
  });
}
