// SWITCHYARD_EXECUTION=thread over real HTTP (issue 12 item 2): fires, conversations, approvals, cancel, a killed worker, a free main loop.
/*
 * The service runs on a SQLite file with its execution side in a worker thread (its own connection); everything is
 * checked through the HTTP API and real SSE clients, with a loopback crm upstream. Decision "Execution in a worker
 * thread (issue 12 item 2)".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { serviceConfig } from '../../bin/cli/service-config.js';
import { UsageError } from '../../bin/cli/exit-codes.js';
import { createService, onSqlite, type Service } from '../../http/service.js';
import { ManualClock } from '../../runtime/clock.js';
import { configFromEnv, DEFAULT_CONFIG } from '../../runtime/config.js';
import { bearer, call, type Answer } from '../helpers/http.js';
import { followSession, type FollowedStream } from '../helpers/session-stream.js';
import { conversationWorkspace, crmCredentials } from '../http/sessions/conversation-fixture.js';
import { startRecordingUpstream, type RecordingUpstream } from '../runtime/tools/recording-upstream.js';

t.setTimeout(120_000);

interface Threaded {
  service: Service;
  port: number;
  refs: Record<string, string>;
  api(method: string, path: string, body?: unknown): Promise<Answer>;
  logs: string[];
}

async function startThreaded(t: Test, upstream: RecordingUpstream, dbPath: string, execution: 'thread' | 'inline' = 'thread'): Promise<Threaded> {
  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) });
  const service = await createService({
    dbPath,
    logger: pino({ level: 'info' }, sink),
    config: { ...DEFAULT_CONFIG, execution, logLevel: 'error', keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
  });
  t.teardown(() => service.close());
  const applied = await service.applyManifest(conversationWorkspace(upstream.baseUrl));
  const port = await service.listen(0, '127.0.0.1');
  const refs = applied.refs as Record<string, string>;
  const api = (method: string, path: string, body?: unknown) =>
    call(`http://127.0.0.1:${port}/api/v1${path}`, { method, headers: bearer(refs['ada-key']!), ...(body === undefined ? {} : { json: body }) });
  return { service, port, refs, api, logs };
}

function tempDb(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-thread-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'switchyard.db');
}

/** Every event once, from seq 1, in order (the snapshot frame aside). */
function assertDense(t: Test, stream: FollowedStream, what: string): void {
  const events = stream.frames.filter((f) => f.type !== 'snapshot');
  t.same(events.map((f) => f.seq), events.map((_f, i) => i + 1), `${what}: dense seqs from 1, each event once`);
}

t.test('SWITCHYARD_EXECUTION: inline by default, thread on request, anything else refused; thread refuses what cannot cross a thread', async (t) => {
  t.equal(configFromEnv({}).execution, 'inline');
  t.equal(configFromEnv({ SWITCHYARD_EXECUTION: 'thread' }).execution, 'thread');
  t.throws(() => configFromEnv({ SWITCHYARD_EXECUTION: 'threads' }), /SWITCHYARD_EXECUTION must be "inline" or "thread"/);
  const thread = { ...DEFAULT_CONFIG, execution: 'thread' as const };
  await t.rejects(createService({ dbPath: ':memory:', config: thread }), /in-memory database cannot be shared/);
  await t.rejects(createService({ dbPath: tempDb(t), config: thread, clock: new ManualClock(0) }), /injected clock cannot cross/);
  await t.rejects(createService({ databaseUrl: 'postgres://u@127.0.0.1:1/db', config: thread }), /for SQLite/);
  // The CLI refuses the same misfit as a usage error (exit 2) before opening anything.
  process.env.SWITCHYARD_EXECUTION = 'thread';
  t.teardown(() => void delete process.env.SWITCHYARD_EXECUTION);
  let refused: unknown;
  try {
    serviceConfig({ db: ':memory:' });
  } catch (error) {
    refused = error;
  }
  t.ok(refused instanceof UsageError && /cannot be shared with another thread/.test(refused.message), 'a UsageError naming the misfit');
  t.equal(serviceConfig({ db: 'file.db' }).execution, 'thread');
});

const completed = (frames: { type: string }[]) => frames.some((f) => f.type === 'turn.completed' || f.type === 'run.completed');

/** The nice values of this process's threads (field 19 of /proc/self/task/<tid>/stat, after the command's parentheses). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

t.test('the execution thread runs at SWITCHYARD_EXECUTION_NICE (default 10); the HTTP loop keeps its priority', { skip: process.platform !== 'linux' && 'thread priorities are read from /proc (Linux)' }, async (t) => {
  t.equal(configFromEnv({}).executionNice, 10);
  t.equal(configFromEnv({ SWITCHYARD_EXECUTION_NICE: '0' }).executionNice, 0);
  t.equal(configFromEnv({ SWITCHYARD_EXECUTION_NICE: '40' }).executionNice, 19, 'capped at the lowest priority');
  t.throws(() => configFromEnv({ SWITCHYARD_EXECUTION_NICE: '-5' }), /SWITCHYARD_EXECUTION_NICE must be a non-negative integer/);
  const before = threadNiceValues().filter((nice) => nice === 7).length;
  // createService resolves once the worker reported ready, which it does after setting its priority.
  const service = await createService({ dbPath: tempDb(t), config: { ...DEFAULT_CONFIG, execution: 'thread', executionNice: 7, logLevel: 'error' } });
  t.teardown(() => service.close());
  t.equal(threadNiceValues().filter((nice) => nice === 7).length, before + 1, 'one more thread of this process runs at nice 7: the worker');
  t.equal(getPriority(), 0, 'the main thread (HTTP) keeps nice 0');
});

t.test('fires, a conversation, an approval and a cancel run in the worker thread; streams see every event once', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const node = await startThreaded(t, upstream, tempDb(t));
  const { api, refs } = node;
  t.equal(node.service.executionThread?.worker !== null, true, 'a worker thread runs');

  // Fires with two subscribers (an agent and a flow): each session is readable at once and streams to completion.
  // Main's connection commits each fire's one run row; the worker writes the sessions, executions and messages.
  const mainChanges = onSqlite(node.service).store.db.prepare('SELECT total_changes()').pluck() as { get(): number };
  const changesBefore = mainChanges.get();
  const streams: FollowedStream[] = [];
  for (let i = 0; i < 5; i++) {
    const fired = await api('POST', '/triggers/fire', { triggerId: refs['new-lead'], input: { email: `lead${i}@example.com`, id: `c-${i}` } });
    t.equal(fired.status, 202, fired.text);
    const sessions = (fired.json.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId);
    t.equal(sessions.length, 2, 'two subscribers, two sessions');
    for (const sessionId of sessions) {
      const read = await api('GET', `/agents/sessions/${sessionId}`);
      t.equal(read.status, 200, 'a read right after the 202 sees the session');
      const stream = followSession(node.port, sessionId, refs['ada-key']!, 0);
      t.teardown(() => stream.close());
      streams.push(stream);
    }
  }
  await Promise.all(streams.map((stream) => stream.until(completed)));
  streams.forEach((stream, i) => assertDense(t, stream, `fired session ${i}`));
  const mainRows = mainChanges.get() - changesBefore;
  t.comment(`rows changed by main's connection for 5 fires: ${mainRows}`);
  t.ok(mainRows < 10, `main wrote about one row per fire (${mainRows}: the runs, and the key's last use); the worker wrote their 10 sessions, executions and messages`);
  // /metrics carries the worker's counters (turns run there) and main's queue accounting (starts posted back).
  const scrape = await call(`http://127.0.0.1:${node.port}/metrics`);
  const value = (name: string) => scrape.text.split('\n').filter((l) => l.startsWith(name)).reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
  t.ok(value('switchyard_turns_started_total') >= 10, 'turns counted in the worker reach /metrics');
  t.ok(value('switchyard_executions_started_total') >= 10, 'starts posted by the worker reach main\'s admission');
  t.equal(value('switchyard_execution_queue_depth'), 0, 'nothing left queued: the depth stays true');
  t.equal(scrape.text.split('\n').filter((l) => l.startsWith('process_resident_memory_bytes ')).length, 1, 'one process RSS series');

  // A session opened, then messaged: both turns run in the worker.
  const opened = await api('POST', `/agents/${refs.writer}/sessions`, { message: '{"id": "c-1", "tier": "gold"}' });
  t.equal(opened.status, 202, opened.text);
  const sessionId = opened.json.sessionId as string;
  const talk = followSession(node.port, sessionId, refs['ada-key']!, 0);
  t.teardown(() => talk.close());
  await talk.until(completed);
  const again = await api('POST', `/agents/sessions/${sessionId}/messages`, { message: '{"id": "c-1", "tier": "silver"}' });
  t.equal(again.status, 200, again.text);
  await talk.until((frames) => frames.filter((f) => f.type === 'turn.completed').length === 2);
  assertDense(t, talk, 'conversation');
  t.equal((await api('GET', `/agents/sessions/${sessionId}`)).json.latestTurn.status, 'completed');

  // An approval: the gated write waits, is approved on main, and the worker runs it once.
  const patchesBefore = upstream.received.filter((r) => r.method === 'PATCH').length;
  const gated = await api('POST', `/agents/${refs.upgrader}/sessions`, { message: '{"id": "c-2", "tier": "enterprise"}', callerCredentials: crmCredentials() });
  t.equal(gated.status, 202, gated.text);
  const gatedStream = followSession(node.port, gated.json.sessionId, refs['ada-key']!, 0);
  t.teardown(() => gatedStream.close());
  await gatedStream.until((frames) => frames.some((f) => f.type === 'turn.suspended'));
  const parked = (await api('GET', `/agents/sessions/${gated.json.sessionId}`)).json;
  t.ok(parked.pendingApprovalId, 'an approval waits');
  const approved = await api('POST', `/agents/sessions/${gated.json.sessionId}/turn-approval`, { decision: 'approved', approvalId: parked.pendingApprovalId });
  t.equal(approved.status, 200, approved.text);
  const stale = await api('POST', `/agents/sessions/${gated.json.sessionId}/turn-approval`, { decision: 'approved', approvalId: parked.pendingApprovalId });
  t.equal(stale.status, 409, 'a second decision is stale (409), answered from the worker');
  t.equal(stale.json.error.code, 'APPROVAL_CONFLICT');
  await gatedStream.until(completed);
  assertDense(t, gatedStream, 'approved session');
  t.equal(upstream.received.filter((r) => r.method === 'PATCH').length - patchesBefore, 1, 'the approved write ran once');

  // A cancel of a running turn: the upstream call is held open, the cancel answers 200 and the call is closed.
  let closedUpstream!: () => void;
  const upstreamClosed = new Promise<void>((resolve) => (closedUpstream = resolve));
  upstream.respond((_request, res) => res.on('close', () => closedUpstream()));
  const slow = await api('POST', `/agents/${refs.lookup}/sessions`, { message: '{"id": "c-3"}', callerCredentials: crmCredentials() });
  t.equal(slow.status, 202, slow.text);
  await upstream.nextRequest();
  const cancelled = await api('POST', `/agents/sessions/${slow.json.sessionId}/cancel`, {});
  t.equal(cancelled.status, 200, cancelled.text);
  t.same(cancelled.json, { executionId: cancelled.json.executionId, status: 'cancelled' }, 'the same body as inline');
  await upstreamClosed;
  t.pass('the upstream call was closed by the cancel');
  const twice = await api('POST', `/agents/sessions/${slow.json.sessionId}/cancel`, { executionId: cancelled.json.executionId });
  t.equal(twice.status, 200, 'repeating the cancel answers the same, as inline');
  t.same(twice.json, cancelled.json);
  t.match((await api('GET', `/agents/sessions/${slow.json.sessionId}`)).json.latestTurn, { status: 'failed', errorCode: 'CANCELLED' });
  const idle = await api('POST', `/agents/sessions/${sessionId}/cancel`, {});
  t.equal(idle.status, 409, 'nothing to cancel in an idle session: 409, the error crossing the thread with its code');
  t.equal(idle.json.error.code, 'CONFLICT');
});

t.test('a worker terminated mid-turn is restarted: the turn resumes, no 202 is lost, no event is streamed twice', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const node = await startThreaded(t, upstream, tempDb(t));
  const { api, refs } = node;
  // The first call is held open while the worker is killed; later calls answer.
  let held = true;
  upstream.respond((request, res) => {
    if (held) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: request.method, path: request.rawPath, tier: 'gold' }));
  });
  const opened = await api('POST', `/agents/${refs.lookup}/sessions`, { message: '{"id": "c-9"}', callerCredentials: crmCredentials() });
  t.equal(opened.status, 202, opened.text);
  const stream = followSession(node.port, opened.json.sessionId, refs['ada-key']!, 0);
  t.teardown(() => stream.close());
  await upstream.nextRequest();
  const fires = await Promise.all(Array.from({ length: 5 }, (_v, i) => api('POST', '/triggers/fire', { triggerId: refs['new-lead'], input: { email: `k${i}@example.com`, id: `c-${i}` } })));
  t.same(fires.map((f) => f.status), [202, 202, 202, 202, 202]);

  const thread = node.service.executionThread!;
  held = false;
  await thread.worker!.terminate();
  // The new worker is still loading and recovering (its boot takes over a second): readiness says so meanwhile.
  t.equal((await call(`http://127.0.0.1:${node.port}/readyz`)).status, 503, 'not ready while the execution thread restarts');
  await stream.until(completed, 60_000);
  t.equal(thread.restarts, 1, 'main started a new worker');
  t.equal((await call(`http://127.0.0.1:${node.port}/readyz`)).status, 200, 'ready again once it recovered');
  assertDense(t, stream, 'the resumed turn');
  t.equal(stream.frames.filter((f) => f.type === 'turn.completed').length, 1, 'one turn.completed');
  t.match((await api('GET', `/agents/sessions/${opened.json.sessionId}`)).json.latestTurn, { status: 'completed' });
  for (const fire of fires) {
    for (const { sessionId } of fire.json.sessions as Array<{ sessionId: string }>) {
      const s = followSession(node.port, sessionId, refs['ada-key']!, 0);
      t.teardown(() => s.close());
      await s.until(completed, 60_000);
      assertDense(t, s, `fired before the kill: ${sessionId}`);
    }
  }
});

for (const execution of ['thread', 'inline'] as const) t.test(`${execution}: the main loop while CPU-heavy turns run (health measured, not asserted; inline for comparison)`, async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  // A large contact record: each tool result is parsed, stored and summarized in the worker.
  const big = JSON.stringify({ id: 'c-1', tier: 'gold', notes: Array.from({ length: 4_000 }, (_v, i) => ({ i, text: 'x'.repeat(100) })) });
  upstream.respond((_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(big);
  });
  const node = await startThreaded(t, upstream, tempDb(t), execution);
  const { api, refs } = node;
  const fired = await Promise.all(Array.from({ length: 40 }, (_v, i) => api('POST', '/triggers/fire', { triggerId: refs['new-lead'], input: { email: `cpu${i}@example.com`, id: `c-${i}` } })));
  const accepted = fired.filter((f) => f.status === 202);
  t.ok(accepted.length > 0, 'fires accepted');
  t.ok(fired.every((f) => f.status === 202 || f.status === 429), 'the rest refused with 429 when over the bound, nothing else');
  const sessions = accepted.flatMap((f) => (f.json.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId));
  const probes: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      const health = await call(`http://127.0.0.1:${node.port}/healthz`);
      probes.push(performance.now() - started);
      t.equal(health.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  for (const sessionId of sessions) {
    const s = followSession(node.port, sessionId, refs['ada-key']!, 0);
    t.teardown(() => s.close());
    await s.until(completed, 90_000);
    s.close();
  }
  probing = false;
  await probe;
  const sorted = [...probes].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  t.comment(`${execution} mode: ${sessions.length} CPU-heavy sessions; /healthz during them: ${probes.length} probes, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  t.ok(probes.length > 0, 'health was probed during the load');
});

t.test('a configuration write on main drops the worker\'s read caches: the next turn calls the integration\'s new base URL', async (t) => {
  const first = await startRecordingUpstream();
  const second = await startRecordingUpstream();
  t.teardown(() => Promise.all([first.close(), second.close()]));
  const node = await startThreaded(t, first, tempDb(t));
  const { api, refs } = node;
  const run = async (id: string) => {
    const opened = await api('POST', `/agents/${refs.lookup}/sessions`, { message: `{"id": "${id}"}`, callerCredentials: crmCredentials() });
    t.equal(opened.status, 202, opened.text);
    const stream = followSession(node.port, opened.json.sessionId, refs['ada-key']!, 0);
    t.teardown(() => stream.close());
    await stream.until(completed);
    stream.close();
  };
  await run('c-1');
  t.equal(first.received.length, 1, 'the worker called the first base URL (its catalog now cached)');
  await node.service.applyManifest(conversationWorkspace(second.baseUrl));
  await run('c-2');
  t.equal(second.received.length, 1, 'the next turn called the new base URL');
  t.equal(first.received.length, 1, 'and not the old one');
});
