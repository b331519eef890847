// A throwaway PostgreSQL cluster for tests: initdb into a temp dir, pg_ctl start on a free 127.0.0.1 port, stop by pg_ctl.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian puts a major version's server binaries; SWITCHYARD_TEST_PG_BIN overrides it (a missing dir: tests skip). */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.SWITCHYARD_TEST_PG_BIN !== undefined) return existsSync(join(env.SWITCHYARD_TEST_PG_BIN, 'initdb')) ? env.SWITCHYARD_TEST_PG_BIN : null;
  if (existsSync('/usr/lib/postgresql/15/bin/initdb')) return '/usr/lib/postgresql/15/bin';
  // Another Debian release ships another major (postgresql-17 on Debian 13): take the newest installed.
  const majors = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)) : [];
  const newest = majors.map(Number).sort((a, b) => b - a).find((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`));
  return newest === undefined ? null : `/usr/lib/postgresql/${newest}/bin`;
}

/** How to run a server binary: initdb and postgres refuse root, so as root they run as the `postgres` user. */
function runner(): { wrap(argv: string[]): string[]; owner: { uid: number; gid: number } | null } | string {
  if (process.getuid?.() !== 0) return { wrap: (argv) => argv, owner: null };
  let ids: { uid: number; gid: number };
  try {
    ids = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
  } catch {
    return 'running as root and there is no `postgres` user to run the server as';
  }
  for (const [tool, prefix] of [
    ['/usr/sbin/runuser', ['/usr/sbin/runuser', '-u', 'postgres', '--']],
    ['/usr/bin/sudo', ['/usr/bin/sudo', '-n', '-u', 'postgres', '--']],
  ] as const) {
    if (existsSync(tool)) return { wrap: (argv) => [...prefix, ...argv], owner: ids };
  }
  if (existsSync('/usr/bin/su')) {
    const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    return { wrap: (argv) => ['/usr/bin/su', 'postgres', '-s', '/bin/sh', '-c', argv.map(quote).join(' ')], owner: ids };
  }
  return 'running as root with none of runuser, sudo or su to run the server as `postgres`';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const DIR_PREFIX = 'switchyard-pg-';
const OWNER_FILE = 'owner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and removes clusters whose test process is gone: a process killed by a signal (tap's timeout) runs no
 * exit hook, so the next start cleans up after it.
 */
function sweepOrphans(binDir: string, exec: (argv: string[]) => unknown): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX))) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // Being set up by another process right now, or not ours.
    }
    if (!Number.isInteger(owner) || alive(owner)) continue;
    exec([join(binDir, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The last lines of the server's log, for a start that failed (pg_ctl itself only says to read it). */
function logTail(dir: string): string {
  try {
    return readFileSync(join(dir, 'server.log'), 'utf8').trim().split('\n').slice(-3).join(' ');
  } catch {
    return '';
  }
}

export interface Cluster {
  /** Superuser URL of the `postgres` database (trust auth on 127.0.0.1 only). */
  readonly adminUrl: string;
  readonly port: number;
  stop(): void;
}

/**
 * Starts a cluster, or returns why it cannot (the tests then skip with that reason). `settings` (`name=value`) come
 * after the test defaults and win over them (a bench turns fsync back on).
 */
export async function startCluster(binDir: string, settings: readonly string[] = []): Promise<Cluster | string> {
  const run = runner();
  if (typeof run === 'string') return run;
  const exec = (argv: string[]) => {
    const [command, ...args] = run.wrap(argv);
    return spawnSync(command!, args, { encoding: 'utf8', timeout: 60_000 });
  };
  sweepOrphans(binDir, exec);
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  if (run.owner) chownSync(dir, run.owner.uid, run.owner.gid);
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  const data = join(dir, 'data');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const init = exec([join(binDir, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  if (init.status !== 0) {
    removeDir();
    return `initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim().split('\n').slice(-3).join(' ')}`;
  }
  // A port picked free can be taken before the server binds it (another test file starting a cluster): retry.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    // fsync off and no full-page writes: a test cluster never survives a crash, so durability only costs time here.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${settings.map((setting) => ` -c ${setting}`).join('')}`;
    const start = exec([join(binDir, 'pg_ctl'), '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    if (start.status === 0) {
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        process.off('exit', stop);
        exec([join(binDir, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']);
        removeDir();
      };
      // A test process that dies before its teardown must not leave a server behind.
      process.on('exit', stop);
      return { adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, port, stop };
    }
    if (attempt === 3) {
      const reason = logTail(dir) || (start.stderr || start.stdout).trim();
      removeDir();
      return `pg_ctl start failed: ${reason}`;
    }
  }
}
