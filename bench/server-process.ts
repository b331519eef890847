// Starts a bench/servers/ script on the server core, waits for its ready line, and stops it by PID.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { detectPinning, REPO_ROOT, spawnTsNode, stopChild, type Child } from './children.js';
import type { RunningServer, ServerPlacement, ServerReady } from './scenario.js';

// Generous: a server may seed a large history first (fire bench, --history 1000000: about a minute here).
const READY_TIMEOUT_MS = 300_000;
const children = new WeakMap<RunningServer, Child>();

export async function startServer(name: string, args: string[] = [], placement: ServerPlacement = {}): Promise<RunningServer> {
  const script = join('bench', 'servers', `${name}.ts`);
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(join(REPO_ROOT, script))) throw new Error(`no bench server named "${name}" in bench/servers/`);
  const { serverCore, clientCore } = detectPinning();
  const cores = placement.cores === 'both' && serverCore !== null ? `${clientCore},${serverCore}` : serverCore;
  const child = spawnTsNode(script, args, cores);
  try {
    const ready = await readyLine(child, name);
    const server: RunningServer = { name, url: `http://127.0.0.1:${ready.port}`, ready, pid: child.process.pid };
    children.set(server, child);
    return server;
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** CPU seconds (user + system) the server process has used so far; null where /proc is not readable. */
export function serverCpuSeconds(server: RunningServer): number | null {
  if (server.pid === undefined) return null;
  try {
    // Fields after the parenthesized command name: utime and stime are the 12th and 13th, in clock ticks (USER_HZ 100).
    const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export async function stopServer(server: RunningServer): Promise<void> {
  const child = children.get(server);
  if (child) await stopChild(child);
}

function readyLine(child: Child, name: string): Promise<ServerReady> {
  return new Promise((resolve, reject) => {
    // readline keeps draining stdout after the first line, so a chatty server never blocks on a full pipe.
    const lines = createInterface({ input: child.process.stdout! });
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      lines.close();
      const stderr = child.stderrTail();
      reject(new Error(`bench server ${name} ${why}${stderr ? `:\n${stderr}` : ''}`));
    };
    const timer = setTimeout(() => fail(`sent no ready line within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    void child.exited.then((code) => fail(`exited (${code}) before it was ready`));
    lines.once('line', (line) => {
      let ready: Partial<ServerReady>;
      try {
        ready = JSON.parse(line) as Partial<ServerReady>;
      } catch {
        return fail(`printed a ready line that is not JSON: ${line.slice(0, 200)}`);
      }
      if (!Number.isInteger(ready.port) || (ready.adapter !== 'uws' && ready.adapter !== 'node')) {
        return fail('printed a ready line without { port, adapter }');
      }
      settled = true;
      clearTimeout(timer);
      resolve(ready as ServerReady);
    });
  });
}
