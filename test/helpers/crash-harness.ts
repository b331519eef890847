// Parent side of the SIGKILL tests: warmed standby children running test/e2e/crash.child.ts, and raw HTTP to them.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { spawnTsNode, stopChild, type Child } from '../../bench/children.js';

const CHILD_SCRIPT = 'test/e2e/crash.child.ts';

/** What a child boots on (one JSON line on its stdin). */
export interface BootOrder {
  dbPath: string;
  /** Added to Date.now() by the child's clock: the parent moves time forward between boots. */
  clockOffsetMs: number;
  /** A workspace manifest to apply once booted (first boot only: key secrets are printed when created). */
  manifest?: unknown;
}

export interface LiveChild {
  readonly child: Child;
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

/** Lines of the child's stdout, in order; waiting for one fails if the child exits first. */
function warm(): Warm {
  const child = spawnTsNode(CHILD_SCRIPT, [], null);
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
   * Boots `order` on the warmed standby (loading the service through tsx takes seconds; opening the database
   * does not) and, unless `last`, starts warming the next standby at once. Resolves when the child listens.
   */
  boot(order: BootOrder, options?: { last?: boolean }): Promise<LiveChild>;
  /** Stops the standby, if any (the live child is the caller's). */
  close(): Promise<void>;
}

export function createChildPool(): ChildPool {
  let standby: Warm | null = null;
  return {
    async boot(order, options = {}) {
      const w = standby ?? warm();
      standby = options.last ? null : warm();
      w.child.process.stdin!.write(`${JSON.stringify(order)}\n`);
      const ready = JSON.parse(await w.next()) as { port: number; refs: Record<string, string> };
      const { child } = w;
      return {
        child,
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
