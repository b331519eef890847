// Runs the real `switchyard start [--workers N] --demo` for a bench (SQLite file or PostgreSQL), and reads its banner.
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectPinning, spawnNode, stopChild, type Child } from './children.js';
import type { RunningServer } from './scenario.js';

export interface CliServiceOptions {
  /** PostgreSQL database URL; null: a SQLite file in a temp directory (durability full, the default). */
  databaseUrl: string | null;
  workers: number;
  /** Seconds to wait for the banner (migrations, demo seeding, every worker listening). */
  readyTimeoutSec?: number;
  /** Extra node flags for the serving process (a profile run passes `--cpu-prof`). */
  nodeArgs?: string[];
}

export interface CliService {
  server: RunningServer & { ready: RunningServer['ready'] & { triggerId: string } };
  /** The processes that serve: the single process, or every worker (not the supervisor). */
  servingPids: number[];
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 now: every worker must bind the same one, and the banner needs no parsing for it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resident set size of a live process in bytes (Linux /proc), 0 when it is gone. */
export function rssBytes(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/** Descriptors a live process holds (Linux /proc): sockets, files, pipes; 0 when it is gone. */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Starts the service on the server core (node:cluster workers inherit the affinity) and resolves once it announced itself. */
export async function startCliService(options: CliServiceOptions): Promise<CliService> {
  const port = await freePort();
  const dir = options.databaseUrl === null ? mkdtempSync(join(tmpdir(), 'switchyard-cli-bench-')) : null;
  const env: Record<string, string> = {
    SWITCHYARD_WORKERS: '',
    SWITCHYARD_LOG_LEVEL: 'warn',
    // The bench measures the request path, not the token buckets saying 429 (as bench/service-boot.ts does).
    SWITCHYARD_RATE_LIMIT_KEY: '0',
    SWITCHYARD_RATE_LIMIT_IP: '0',
    ...(options.databaseUrl === null ? { SWITCHYARD_DATABASE_URL: '', SWITCHYARD_DB: join(dir!, 'bench.db') } : { SWITCHYARD_DATABASE_URL: options.databaseUrl }),
  };
  const args = ['start', '--demo', '--host', '127.0.0.1', '--port', String(port), ...(options.workers > 1 ? ['--workers', String(options.workers)] : [])];
  const child = spawnNode([...(options.nodeArgs ?? []), '--import', 'tsx', 'bin/switchyard.ts', ...args], detectPinning().serverCore, env);
  // Its log goes to stdout, which nothing here reads: undrained, a full pipe blocks the service's synchronous log
  // writes (pino) mid-run or at exit. SWITCHYARD_BENCH_LOG=FILE keeps it, for a look at what a run logged.
  if (process.env.SWITCHYARD_BENCH_LOG) child.process.stdout?.pipe(createWriteStream(process.env.SWITCHYARD_BENCH_LOG, { flags: 'a' }));
  else child.process.stdout?.resume();
  const cleanup = async (): Promise<void> => {
    await stopChild(child, 10_000);
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const banner = await bannerOf(child, options.workers, (options.readyTimeoutSec ?? 120) * 1000);
    const apiKey = /Authorization: Bearer (\S+?)'/.exec(banner)?.[1];
    const triggerId = /"triggerId":"([^"]+)"/.exec(banner)?.[1];
    if (!apiKey || !triggerId) throw new Error('switchyard start printed no demo key or trigger id (was the demo seeded?)');
    const pids = /share port \d+: pids ([\d ]+)/.exec(banner)?.[1]?.trim().split(' ').map(Number) ?? [child.pid];
    const engine = options.databaseUrl === null ? 'sqlite' : 'postgres';
    return {
      server: {
        name: `switchyard start --workers ${options.workers} (${engine})`,
        url: `http://127.0.0.1:${port}`,
        ready: { port, adapter: 'uws', apiKey, triggerId },
      },
      servingPids: pids,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** stderr up to the line that says the service serves: the demo banner, then (with workers) the pids line. */
function bannerOf(child: Child, workers: number, timeoutMs: number): Promise<string> {
  const done = workers > 1 ? /share port \d+: pids [\d ]+\n/ : /Stop: Ctrl-C\n/;
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => finish(new Error(`switchyard start sent no banner within ${timeoutMs / 1000} s: ${child.stderrTail()}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (done.test(text)) finish(null);
    };
    const finish = (error: Error | null): void => {
      clearTimeout(timer);
      child.process.stderr?.off('data', onData);
      if (error) reject(error);
      else resolve(text);
    };
    child.process.stderr?.on('data', onData);
    void child.exited.then((code) => finish(new Error(`switchyard start exited (${code}) before it served: ${child.stderrTail()}`)));
  });
}
