// The thread-split prototype (bench/prototypes) does the work it claims in every mode: fires accepted, sessions materialized, executions run, events in order, the bound refuses.
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { spawnTsNode, stopChild, type Child } from '../../bench/children.js';

interface Stats {
  accepted: number;
  refused: number;
  badRequests: number;
  completed: number;
  materializedThrough: number;
  envelopes: number;
  outOfOrder: number;
  queued: number;
}

async function boot(t: Test, args: string[]): Promise<string> {
  const child: Child = spawnTsNode('bench/prototypes/split-server.ts', args, null);
  t.teardown(() => stopChild(child));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.process.stdout! }).once('line', resolve);
    void child.exited.then((code) => reject(new Error(`split-server exited (${code}): ${child.stderrTail()}`)));
  });
  return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
}

const fire = (url: string, body = '{"input":{"id":"c-1"}}'): Promise<Response> => fetch(`${url}/fire`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const stats = async (url: string): Promise<Stats> => (await (await fetch(`${url}/stats`)).json()) as Stats;

async function settled(url: string, executions: number): Promise<Stats> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const now = await stats(url);
    if (now.completed >= executions || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const mode of ['inline', 'thread', 'thread-main-writes', 'thread-worker-writes']) {
  t.test(`${mode}: each 202 names a run and two sessions; both executions run, with 5 events each in order`, async (t) => {
    const url = await boot(t, ['--mode', mode, '--exec-us', '200']);
    const answers = await Promise.all([fire(url), fire(url), fire(url)]);
    for (const answer of answers) {
      t.equal(answer.status, 202);
      t.match(await answer.json(), { runId: String, sessions: [{ sessionId: String }, { sessionId: String }] });
    }
    const bad = await fire(url, 'not json');
    t.equal(bad.status, 400);
    t.same(await bad.json(), { error: { code: 'VALIDATION', message: 'The body is not JSON.' } });
    t.equal((await fetch(`${url}/healthz`)).status, 200);
    const after = await settled(url, 6);
    t.match(after, { accepted: 3, refused: 0, badRequests: 1, completed: 6, materializedThrough: 3, queued: 0, envelopes: 30, outOfOrder: 0 });
  });
}

t.test('past --max-queued executions a fire is refused with 429 OVERLOADED and Retry-After, and nothing is written', async (t) => {
  const url = await boot(t, ['--mode', 'thread-worker-writes', '--max-queued', '1']);
  const [first, second] = await Promise.all([fire(url), fire(url)]);
  t.equal(first!.status, 202);
  t.equal(second!.status, 429);
  t.equal(second!.headers.get('retry-after'), '1');
  t.match(await second!.json(), { error: { code: 'OVERLOADED' } });
  t.match(await settled(url, 2), { accepted: 1, refused: 1, completed: 2, materializedThrough: 1 });
});
