// Two transactions racing on a real PostgreSQL server: a transaction with the repositories bound to it, and a wait for lock waiters.
import type { Test } from 'tap';
import type { PostgresPool } from '../../storage/postgres/connection.js';
import { createPostgresRepositories } from '../../storage/postgres/repos/index.js';

/** One pooled client in an open transaction, with the repositories bound to it; rolled back if the test leaves it open. */
export async function transaction(t: Test, pool: PostgresPool) {
  const client = await pool.connect();
  await client.query('BEGIN');
  let open = true;
  t.teardown(async () => {
    if (open) await client.query('ROLLBACK');
    client.release();
  });
  return {
    client,
    repos: createPostgresRepositories(client),
    end: async (how: 'COMMIT' | 'ROLLBACK') => {
      open = false;
      await client.query(how);
    },
  };
}

/**
 * Resolves once `n` backends of this database wait on a lock: the racing statements really met the row locks.
 * Rejects after 10 s, so a statement that should have waited and did not fails the test instead of hanging it.
 */
export async function lockWaiters(pool: PostgresPool, n: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (rows[0]!.n >= n) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`fewer than ${n} backends waited on a lock within 10 s`);
}
