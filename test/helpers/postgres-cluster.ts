// A throwaway PostgreSQL cluster for tests: initdb into a temp dir, pg_ctl start on a free 127.0.0.1 port, stop by pg_ctl.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

export interface Cluster {
  /** Superuser URL of the `postgres` database (trust auth on 127.0.0.1 only). */
  readonly adminUrl: string;
  readonly port: number;
  stop(): void;
}

/** Starts a cluster, or returns why it cannot (the tests then skip with that reason). */
export async function startCluster(binDir: string): Promise<Cluster | string> {
  const run = runner();
  if (typeof run === 'string') return run;
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  if (run.owner) chownSync(dir, run.owner.uid, run.owner.gid);
  const data = join(dir, 'data');
  const exec = (argv: string[]) => {
    const [command, ...args] = run.wrap(argv);
    return spawnSync(command!, args, { encoding: 'utf8', timeout: 60_000 });
  };
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
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
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
      removeDir();
      return `pg_ctl start failed: ${(start.stderr || start.stdout).trim().split('\n').slice(-3).join(' ')}`;
    }
  }
}
