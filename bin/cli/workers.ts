// Owns how many worker processes `switchyard start` runs: --workers, then SWITCHYARD_WORKERS, then 1; `auto` = CPUs.
import { availableParallelism } from 'node:os';
import { UsageError } from './exit-codes.js';

const WHY_POSTGRES =
  'more than one worker needs PostgreSQL (set SWITCHYARD_DATABASE_URL): a SQLite database file has one writer, so worker processes would queue on its lock';

/** `auto` or a whole number ≥ 1; null when the text is neither (the caller words the error for its source). */
export function parseWorkers(text: string): number | null {
  if (text === 'auto') return availableParallelism();
  if (!/^\d+$/.test(text) || Number(text) < 1) return null;
  return Number(text);
}

/** The worker count to run, refused (exit 2) when it is bad or when more than one would share a SQLite file. */
export function workerCount(flag: number | undefined, env: NodeJS.ProcessEnv, onPostgres: boolean): number {
  let count = flag;
  if (count === undefined && env.SWITCHYARD_WORKERS !== undefined && env.SWITCHYARD_WORKERS !== '') {
    const parsed = parseWorkers(env.SWITCHYARD_WORKERS);
    if (parsed === null) throw new UsageError(`SWITCHYARD_WORKERS must be a whole number ≥ 1 or "auto", got "${env.SWITCHYARD_WORKERS}"`);
    count = parsed;
  }
  count ??= 1;
  if (count > 1 && !onPostgres) throw new UsageError(`--workers ${count}: ${WHY_POSTGRES}`);
  return count;
}
