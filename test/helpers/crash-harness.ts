// Parent side of the SIGKILL tests: warmed standby children running test/e2e/crash.child.ts, and raw HTTP to them.
import { mkdirSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT, spawnNode, stopChild, type Child } from '../../bench/children.js';

const CHILD_SCRIPT = 'test/e2e/crash.child.ts';

/** The part of esbuild's API used here (esbuild is what tsx transpiles with; it ships with tsx). */
type EsbuildBuild = (options: {
  entryPoints: string[];
  outfile: string;
  bundle: true;
  platform: 'node';
  format: 'esm';
  target: string;
  packages: 'external';
  logLevel: 'warning';
}) => Promise<unknown>;

/**
 * Bundles the child once per test run, with the esbuild tsx itself runs on (so the same transform): a boot then
 * loads one file instead of ~300 through the tsx loader, about a third of the CPU (0.8 s instead of 2.5 s), which
 * is what lets 20+ boots fit in the test's time on two cores. Packages stay external, so the bundle lives under
 * node_modules/.cache where they resolve. The runtime reads no file relative to its own module, so bundling
 * changes nothing it does.
 */
async function bundleChild(): Promise<{ path: string; remove(): void }> {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const { build } = fromTsx('esbuild') as { build: EsbuildBuild };
  // One folder per run: the execution worker's entry (SWITCHYARD_EXECUTION=thread) is bundled beside the child,
  // where http/execution-thread.ts looks for it (next to the module that starts it).
  const dir = join(REPO_ROOT, 'node_modules', '.cache', 'switchyard-crash', `run-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const bundle = (entry: string, outfile: string) =>
    build({ entryPoints: [join(REPO_ROOT, entry)], outfile: join(dir, outfile), bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  await Promise.all([bundle(CHILD_SCRIPT, 'child.mjs'), bundle('http/execution-worker.ts', 'execution-worker.js')]);
  return { path: join(dir, 'child.mjs'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a child boots on (one JSON line on its stdin). */
export interface BootOrder {
  dbPath: string;
  /** postgres:// URL: the child runs on PostgreSQL instead of the file at dbPath. */
  databaseUrl?: string;
  /** Added to Date.now() by the child's clock: the parent moves time forward between boots. */
  clockOffsetMs: number;
  /** A workspace manifest to apply once booted (first boot only: key secrets are printed when created). */
  manifest?: unknown;
  /** How long this node's session leases last (PostgreSQL): a short one makes a takeover after SIGKILL quick to test. */
  sessionLeaseMs?: number;
  /** `thread`: execution in a worker thread (the clock is then the system's: clockOffsetMs must be 0). */
  execution?: 'inline' | 'thread';
}

export interface LiveChild {
  readonly child: Child;
  /** The order it booted on. */
  readonly order: BootOrder;
  readonly port: number;
  readonly refs: Record<string, string>;
  /** Resolves once no session queue runs and no due timer is in flight in the child. */
  idle(): Promise<void>;
  /** SIGKILL: the crash under test. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** Clean stop (SIGTERM, the service closes). */
  stop(): Promise<void>;
}

interface Warm {
  child: Child;
  next(): Promise<string>;
}

/** Starts a child on the bundle; its stdout lines in order (waiting for one fails if the child exits first). */
function warm(bundle: string): Warm {
  const child = spawnNode([bundle], null);
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let gone: Error | null = null;
  createInterface({ input: child.process.stdout! }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(line);
    else lines.push(line);
  });
  void child.exited.then((code) => {
    gone = new Error(`crash child ${child.pid} exited (${code}): ${child.stderrTail()}`);
    for (const waiter of waiting.splice(0)) waiter.reject(gone);
  });
  return {
    child,
    next: () =>
      new Promise<string>((resolve, reject) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else if (gone !== null) reject(gone);
        else waiting.push({ resolve, reject });
      }),
  };
}

export interface ChildPool {
  /**
   * Boots `order` on the warmed standby (loading the service takes a second or more; opening the database does
   * not) and, unless `last`, starts warming the next standby at once. Resolves when the child listens.
   */
  boot(order: () => BootOrder, options?: { last?: boolean }): Promise<LiveChild>;
  /**
   * Boots `order` on the standby and SIGKILLs it `afterMs` later, wherever it is: opening the database,
   * recovering turns, firing overdue timers. Resolves once it is gone, with whether it had announced ready.
   */
  crashDuringBoot(order: () => BootOrder, afterMs: number): Promise<{ wasReady: boolean }>;
  /** Stops the standby, if any (the live child is the caller's). */
  close(): Promise<void>;
}

export function createChildPool(): ChildPool {
  let standby: Warm | null = null;
  const bundled = bundleChild();
  // A failed build is reported by the first boot.
  bundled.catch(() => undefined);
  /** The order is made once the standby is warm, so a clock offset in it starts counting when the child reads it. */
  async function take(makeOrder: () => BootOrder, last: boolean): Promise<{ w: Warm; order: BootOrder }> {
    const { path } = await bundled;
    const w = standby ?? warm(path);
    standby = last ? null : warm(path);
    // The child says when its modules are loaded: from here on, time is spent on the database alone.
    const loaded = JSON.parse(await w.next()) as { warm?: boolean };
    if (loaded.warm !== true) throw new Error(`unexpected first line from a crash child: ${JSON.stringify(loaded)}`);
    const order = makeOrder();
    w.child.process.stdin!.write(`${JSON.stringify(order)}\n`);
    return { w, order };
  }
  return {
    async crashDuringBoot(order, afterMs) {
      const { w } = await take(order, false);
      let wasReady = false;
      void w.next().then(
        () => (wasReady = true),
        () => undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      process.kill(w.child.pid, 'SIGKILL');
      await w.child.exited;
      return { wasReady };
    },
    async boot(order, options = {}) {
      const { w, order: booted } = await take(order, options.last ?? false);
      const ready = JSON.parse(await w.next()) as { port: number; refs: Record<string, string> };
      const { child } = w;
      return {
        child,
        order: booted,
        port: ready.port,
        refs: ready.refs,
        async idle() {
          child.process.stdin!.write('idle\n');
          const answer = JSON.parse(await w.next()) as { idle?: boolean };
          if (answer.idle !== true) throw new Error(`unexpected answer to idle: ${JSON.stringify(answer)}`);
        },
        async kill() {
          process.kill(child.pid, 'SIGKILL');
          await child.exited;
        },
        stop: () => stopChild(child),
      };
    },
    async close() {
      const w = standby;
      standby = null;
      if (w !== null) await stopChild(w.child);
      await bundled.then((bundle) => bundle.remove(), () => undefined);
    },
  };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request over `agent`; rejects when the connection fails (e.g. the child was killed meanwhile). */
export function send(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const all = payload === undefined ? headers : { 'content-type': 'application/json', ...headers };
    const req = request({ agent, host: '127.0.0.1', port, path, method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
