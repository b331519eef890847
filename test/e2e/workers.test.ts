// `switchyard start --workers 2` on PostgreSQL (issue 16 item 5): one port, both workers answer, a killed worker comes back, SIGTERM drains.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../../bench/children.js';
import { send } from '../helpers/crash-harness.js';
import { usePostgres } from '../helpers/postgres.js';

t.setTimeout(180_000);
const pg = await usePostgres(t);
const TSX = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(REPO_ROOT, 'bin', 'switchyard.ts');

interface LogLine {
  msg: string;
  pid?: number;
  worker?: number;
  signal?: string;
  role?: string;
}

/** The supervisor process with its stdout parsed as JSON log lines and its stderr kept as text. */
function startSupervisor(databaseUrl: string, port = 0) {
  const env = { ...process.env, SWITCHYARD_DATABASE_URL: databaseUrl, SWITCHYARD_WORKERS: '' };
  const child: ChildProcess = spawn(TSX, [CLI, 'start', '--workers', '2', '--port', String(port), '--demo'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: LogLine[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    logs,
    exited,
    stderr: () => stderr,
    async until<T>(probe: () => T | undefined | null | false, what: string, ms = 60_000): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = probe();
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test('two workers on one port answer, replay a keyed fire, survive a SIGKILL, and drain on SIGTERM', { skip: pg.skip }, async (t) => {
  const databaseUrl = await pg.database(t);
  const sup = startSupervisor(databaseUrl);
  t.teardown(() => void (sup.child.exitCode === null && sup.child.kill('SIGKILL')));
  const banner = await sup.until(() => /share port (\d+): pids (\d+) (\d+)/.exec(sup.stderr()), 'the workers banner');
  const port = Number(banner[1]);
  const pids = [Number(banner[2]), Number(banner[3])];
  const key = /Authorization: Bearer (\S+?)'/.exec(sup.stderr())![1]!;
  const triggerId = /"triggerId":"([^"]+)"/.exec(sup.stderr())![1]!;
  t.not(pids[0], pids[1], 'two distinct worker processes');
  // The banner is on stderr and the log lines on stdout: two pipes, so a worker's line may still be on its way.
  const listening = () => new Set(sup.logs.filter((l) => l.msg === 'listening').map((l) => l.worker));
  await sup.until(() => listening().size >= 2, 'both workers\' listening lines', 10_000).catch(() => undefined);
  t.same(listening(), new Set([0, 1]), 'each worker logs its index');

  // A new connection per request: the kernel spreads them over the workers, whose access lines carry their pid.
  const agent = new Agent({ keepAlive: false });
  for (let i = 0; i < 40; i++) t.equal((await send(agent, port, 'GET', '/healthz', {})).status, 200);
  const answered = await sup.until(() => {
    const seen = new Set(sup.logs.filter((l) => l.msg === 'request').map((l) => l.pid));
    return pids.every((pid) => seen.has(pid)) && seen;
  }, 'access lines from both workers', 5_000);
  t.ok(answered, 'both worker pids answered on the one port');

  // A keyed fire through whichever worker answers, replayed byte for byte through the others.
  const fire = { triggerId, input: { prompt: 'How do I fire a trigger?' } };
  const headers = { authorization: `Bearer ${key}`, 'idempotency-key': 'workers-fire-1' };
  const first = await send(agent, port, 'POST', '/api/v1/triggers/fire', headers, fire);
  t.equal(first.status, 202, first.text);
  for (let i = 0; i < 6; i++) {
    const replay = await send(agent, port, 'POST', '/api/v1/triggers/fire', headers, fire);
    t.equal(replay.text, first.text, `replay ${i + 1} answers the first 202`);
  }

  // SIGKILL worker 0: the supervisor logs it and forks a new worker 0; the service answers all along.
  process.kill(pids[0]!, 'SIGKILL');
  const died = await sup.until(() => sup.logs.find((l) => l.msg === 'worker died: restarting'), 'the crash log line');
  t.match(died, { worker: 0, pid: pids[0], signal: 'SIGKILL' });
  const restarted = await sup.until(
    () => sup.logs.find((l) => l.msg === 'listening' && l.worker === 0 && l.pid !== pids[0]),
    'worker 0 listening again',
  );
  for (let i = 0; i < 10; i++) t.equal((await send(agent, port, 'GET', '/healthz', {})).status, 200);
  const again = await send(agent, port, 'POST', '/api/v1/triggers/fire', headers, fire);
  t.equal(again.text, first.text, 'the fire replays after the restart');

  // SIGTERM to the supervisor: every worker shuts down gracefully and the supervisor exits 0.
  sup.child.kill('SIGTERM');
  t.equal(await sup.exited, 0, 'clean exit');
  // The exit can be seen before the last stdout lines are read.
  const closed = () => sup.logs.filter((l) => l.msg === 'closed' && l.worker !== undefined).length;
  await sup.until(() => closed() >= 2, 'both workers\' closed lines', 5_000).catch(() => undefined);
  t.equal(closed(), 2, 'both live workers closed their service');
  t.notOk(alive(restarted.pid!) || alive(pids[1]!), 'no worker outlives the supervisor');
});

t.test('workers that cannot listen (the port is taken) stop the supervisor with exit 1', { skip: pg.skip, timeout: 60_000 }, async (t) => {
  const databaseUrl = await pg.database(t);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const sup = startSupervisor(databaseUrl, (taken.address() as AddressInfo).port);
  t.teardown(() => void (sup.child.exitCode === null && sup.child.kill('SIGKILL')));
  t.equal(await sup.exited, 1);
  t.match(sup.stderr(), /worker \d exited with code 1 before it listened/);
  t.match(sup.stderr(), /could not listen on 127\.0\.0\.1/);
});

/** `switchyard <args>` run to its end: exit code and output. */
function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(TSX, [CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, SWITCHYARD_DATABASE_URL: '', SWITCHYARD_WORKERS: '', SWITCHYARD_DB: ':memory:', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

t.test('more than one worker on SQLite, or a bad count, is a usage error; --help lists the option', async (t) => {
  const flag = run(['start', '--workers', '2', '--port', '0']);
  t.equal(flag.status, 2, flag.stderr);
  t.match(flag.stderr, /--workers 2: more than one worker needs PostgreSQL \(set SWITCHYARD_DATABASE_URL\): a SQLite database file has one writer/);
  const env = run(['start', '--port', '0'], { SWITCHYARD_WORKERS: '3' });
  t.equal(env.status, 2);
  t.match(env.stderr, /--workers 3: more than one worker needs PostgreSQL/);
  const bad = run(['start', '--workers', '0']);
  t.equal(bad.status, 2);
  t.match(bad.stderr, /at least 1, or "auto"/);
  const badEnv = run(['start'], { SWITCHYARD_WORKERS: 'many' });
  t.equal(badEnv.status, 2);
  t.match(badEnv.stderr, /SWITCHYARD_WORKERS must be a whole number ≥ 1 or "auto", got "many"/);
  const help = run(['start', '--help']);
  t.equal(help.status, 0);
  t.match(help.stdout, /--workers <n>/);
});
