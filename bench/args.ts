// Command-line options of `npm run bench`, with the bounds that keep a run finite.
import { parseArgs } from 'node:util';

export interface BenchOptions {
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** Run only scenarios whose name contains one of these (empty: all). */
  only: string[];
  /** Load only these bench/servers/ targets in HTTP scenarios (empty: all), e.g. the baseline alone to calibrate the client. */
  targets: string[];
  quick: boolean;
  /** Where the results go; null prints them only. */
  out: string | null;
  help: boolean;
}

export const DEFAULT_OUT = 'bench/RESULTS.md';

export const USAGE = `npm run bench -- [options]
  --duration N      seconds of load per target (default 10; --quick: 1), 1–600
  --connections N   autocannon connections (default 50; --quick: 10), 1–2000
  --only NAME       run scenarios whose name contains NAME (repeatable)
  --target SERVER   load only this bench/servers/ target (or fire-bench row label) in HTTP and fire scenarios (repeatable)
  --quick           smoke run: 1 s, no warm-up; prints the table and writes no file unless --out is given
  --out FILE        write the results here (default ${DEFAULT_OUT})`;

export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string', multiple: true },
      target: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const quick = values.quick;
  const durationSec = bounded('--duration', values.duration, quick ? 1 : 10, 1, 600);
  return {
    durationSec,
    // JIT and SQLite page cache warm up before the measured seconds; a smoke run skips it.
    warmupSec: quick ? 0 : Math.min(3, Math.max(1, Math.round(durationSec / 5))),
    connections: bounded('--connections', values.connections, quick ? 10 : 50, 1, 2000),
    only: values.only ?? [],
    targets: values.target ?? [],
    quick,
    // A smoke run must not overwrite the recorded figures by accident.
    out: values.out ?? (quick ? null : DEFAULT_OUT),
    help: values.help,
  };
}

function bounded(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  return value;
}
