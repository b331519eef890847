// The worker supervisor with stand-in workers: a crash loop gives up with exit code 1; a drain waits for every worker.
import cluster from 'node:cluster';
import { Writable } from 'node:stream';
import t from 'tap';
import { startSupervisor } from '../../bin/cli/supervisor.js';
import { createLogger } from '../../runtime/logger.js';

// Plain JavaScript children: they need neither tsx nor the tap loaders the test process runs with.
cluster.setupPrimary({ exec: new URL('./supervisor-worker.child.mjs', import.meta.url).pathname, execArgv: [], silent: true });

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

t.test('a worker that keeps dying young is restarted with growing backoff, then the supervisor gives up with 1', async (t) => {
  const { lines, logger } = capturedLogger();
  const supervisor = startSupervisor({ count: 1, env: { FIXTURE_MODE: 'crash' }, logger, maxRestarts: 3 });
  await t.rejects(supervisor.ready, /worker 0 exited with code 3 before it listened/);
  // ready rejecting is the caller's cue to stop; here we let the crash loop run to its bound.
  t.equal(await supervisor.done, 1);
  const restarts = lines.filter((l) => l.msg === 'worker died: restarting');
  t.same(restarts.map((l) => l.restartInMs), [250, 500, 1000], 'the delay doubles at each young death');
  t.same(restarts.map((l) => l.code), [3, 3, 3], 'each death is logged with its exit code');
  t.match(lines.at(-2), { msg: 'worker keeps crashing: giving up, stopping every worker', code: 3 });
  t.equal(lines.filter((l) => l.msg === 'worker started').length, 4, 'the first start and three restarts');
});

t.test('SIGTERM drains every worker and resolves 0 when all exited cleanly', async (t) => {
  const { lines, logger } = capturedLogger();
  const supervisor = startSupervisor({ count: 3, env: { FIXTURE_MODE: 'serve' }, logger });
  const pids = await supervisor.ready;
  t.equal(new Set(pids).size, 3, 'three worker processes');
  supervisor.stop('SIGTERM');
  t.equal(await supervisor.done, 0);
  t.same(lines.filter((l) => l.msg === 'worker stopped').map((l) => l.code), [0, 0, 0]);
});
