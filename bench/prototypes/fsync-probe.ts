// Measurement prototype, not service code: how long one durable commit takes on this disk right now (WAL, synchronous=FULL, one row).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './healthz-probe.js';

/** p50 and p99 of 100 single-row FULL commits, in ms: the floor under every group commit in the table. */
export function measureCommit(): { p50: number; p99: number } {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-fsync-'));
  try {
    const db = new Database(join(dir, 'probe.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (x TEXT) STRICT');
    const insert = db.transaction(() => db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(200)));
    const ms: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const started = performance.now();
      insert.immediate();
      ms.push(performance.now() - started);
    }
    db.close();
    return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
