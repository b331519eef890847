// Child processes of a bench run: spawning them pinned to a core, and killing every one by PID, even on failure.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Which core the server and the client get; null when taskset is absent or the cores are not ours. */
export interface Pinning {
  serverCore: number | null;
  clientCore: number | null;
  description: string;
}

let pinning: Pinning | undefined;

/** Server on core 1, client on core 0 (PERF-NOTES: one autocannon core tops out near 80k req/s). */
export function detectPinning(): Pinning {
  if (pinning) return pinning;
  const usable = (core: number): boolean => spawnSync('taskset', ['-c', String(core), 'true'], { stdio: 'ignore' }).status === 0;
  if (spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status !== 0) {
    pinning = { serverCore: null, clientCore: null, description: 'not pinned (taskset not found)' };
  } else if (!usable(0) || !usable(1)) {
    pinning = { serverCore: null, clientCore: null, description: 'not pinned (cores 0 and 1 are not both available to this process)' };
  } else {
    pinning = { serverCore: 1, clientCore: 0, description: 'server child on core 1, autocannon child on core 0 (taskset -c)' };
  }
  return pinning;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  /** The last few KB of stderr, for error messages. */
  stderrTail(): string;
}

const live = new Map<number, ChildProcess>();

/**
 * Runs `node --import tsx <script> ...args` from the repo root, on `core` when given (a taskset list such as '0,1' too),
 * with `extraEnv` over this process's environment (settings, or a secret that must not show in `ps`).
 */
export function spawnTsNode(script: string, args: string[], core: number | string | null, extraEnv: Record<string, string> = {}): Child {
  return spawnNode(['--import', 'tsx', script, ...args], core, extraEnv);
}

/** Runs `node ...nodeArgs` from the repo root, on `core` when given (plain JavaScript needs no tsx loader). */
export function spawnNode(nodeArgs: string[], core: number | string | null, extraEnv: Record<string, string> = {}): Child {
  const line = [process.execPath, ...nodeArgs];
  const [command, ...commandArgs] = core === null ? line : ['taskset', '-c', String(core), ...line];
  // Test-runner hooks in NODE_OPTIONS (tap's process tracking) must not ride along into measured processes.
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', ...extraEnv };
  delete env.NODE_OPTIONS;
  // stdin stays an open pipe: the children exit when it closes, so even a SIGKILLed runner leaves no orphan.
  const child = spawn(command, commandArgs, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start node ${nodeArgs.join(' ')}`);
  const pid = child.pid;
  live.set(pid, child);
  // EPIPE on the lifeline only means the child is already gone; 'exit' reports that.
  child.stdin?.on('error', () => undefined);
  let tail = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4096);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(pid);
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (error) => {
      live.delete(pid);
      tail += `\n${error.message}`;
      resolve('spawn-error');
    });
  });
  return { process: child, pid, exited, stderrTail: () => tail.trim() };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopChild(child: Child, graceMs = 3000): Promise<void> {
  if (!live.has(child.pid)) return;
  signal(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (live.has(child.pid)) signal(child.pid, 'SIGKILL');
  }, graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Synchronous last resort for process exit: every child this run started, by PID. */
export function killAllChildren(): void {
  for (const pid of live.keys()) signal(pid, 'SIGKILL');
  live.clear();
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: it exited before its 'exit' event reached our bookkeeping.
  }
}

let hooked = false;

/** Makes sure no child outlives the runner, however the runner ends. */
export function killChildrenOnExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', killAllChildren);
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.once(name, () => {
      killAllChildren();
      process.exit(128 + os.constants.signals[name]);
    });
  }
}
