// Counts what executions cost the database: statements run (every prepared statement's run/get/all/iterate) and write units.
import Database from 'better-sqlite3';

export interface CostCounter {
  statements: number;
  /** Statements by SQL text, for the breakdown a failing count prints. */
  bySql: Map<string, number>;
}

type StatementMethod = (this: Database.Statement, ...args: unknown[]) => unknown;

/**
 * Wraps the Statement prototype's execution methods once per process (better-sqlite3 shares one prototype across
 * databases); `start()` opens a window, `stop()` closes it and returns what ran inside.
 */
export function statementCounter(): { start(): void; stop(): CostCounter } {
  const probe = new Database(':memory:').prepare('SELECT 1');
  const prototype = Object.getPrototypeOf(probe) as Record<string, StatementMethod>;
  let current: CostCounter | null = null;
  let perStatement = new Map<Database.Statement, number>();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = prototype[method]!;
    prototype[method] = function counted(this: Database.Statement, ...args: unknown[]) {
      if (current !== null) {
        current.statements += 1;
        // Keyed by the statement object (cheap); its SQL text is read when the window closes.
        perStatement.set(this, (perStatement.get(this) ?? 0) + 1);
      }
      return original.apply(this, args);
    };
  }
  return {
    start() {
      current = { statements: 0, bySql: new Map() };
      perStatement = new Map();
    },
    stop() {
      const out = current ?? { statements: 0, bySql: new Map() };
      current = null;
      for (const [statement, n] of perStatement) {
        const sql = statement.source.replace(/\s+/g, ' ').trim();
        out.bySql.set(sql, (out.bySql.get(sql) ?? 0) + n);
      }
      return out;
    },
  };
}

/** The top statements of a window, per execution, for a diagnostic line. */
export function breakdown(counter: CostCounter, executions: number, top = 40): string {
  return [...counter.bySql]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([sql, n]) => `${(n / executions).toFixed(2).padStart(6)}  ${sql.slice(0, 150)}`)
    .join('\n');
}

/** With TURN_COST_PROFILE=<file>, a CPU profile of `work` alone (node:inspector), for finding where the time goes. */
export async function profiled<T>(work: () => Promise<T>): Promise<T> {
  const file = process.env.TURN_COST_PROFILE;
  if (!file) return work();
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
