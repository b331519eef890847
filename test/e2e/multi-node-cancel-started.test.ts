// Two services on one PostgreSQL (issue 16 item 2): a cancel finds the queued execution it read started meanwhile.
/*
 * The other order of the race in multi-node-cancel-queue.test.ts: node B reads the session's queue (the turn ahead
 * still runs on A, so the cancelled execution is a later, queued one), then A finishes that turn and starts the
 * execution before B's unit runs. Nothing outside the process can hold B between its read and its unit, so the two
 * nodes are real services in this process and B's queue read is held by the test (a wrapper on B's repository, the
 * real read underneath). The cancel must then take the lease like a cancel of the running execution: A's call is
 * aborted at once, one terminal event, the session moves on. Decision "A cancel racing a queued execution's start".
 */
import { Agent, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { createService } from '../../http/service.js';
import { systemClock } from '../../runtime/clock.js';
import { createLogger } from '../../runtime/logger.js';
import { send } from '../helpers/crash-harness.js';
import { usePostgres } from '../helpers/postgres.js';
import { testHttpAdapter } from '../helpers/server.js';
import { useSharedMasterKeys } from '../helpers/shared-master-keys.js';
import { startRecordingUpstream, type RecordedRequest } from '../runtime/tools/recording-upstream.js';
import { conversationWorkspace, crmCredentials, crmResponder } from '../http/sessions/conversation-fixture.js';

t.setTimeout(90_000);
const db = await usePostgres(t);
/** The default lease renews every 5 s: an abort well before that came from the seize notice, not a renewal. */
const AT_ONCE_MS = 3_000;
const LOOKUP = '{"id": "c-1"}';

t.test('a cancel that finds the queued execution started meanwhile cancels it as the running one', { skip: db.skip }, async (t) => {
  const databaseUrl = await db.database(t);
  useSharedMasterKeys(t);
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const held: ServerResponse[] = [];
  let onDrop = () => {};
  upstream.respond((request: RecordedRequest, res: ServerResponse) => {
    if (request.method !== 'GET') return crmResponder(request, res);
    held.push(res);
    res.on('close', () => {
      if (!res.writableEnded) onDrop();
    });
  });
  const sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // The database is dropped (its connections terminated) by a teardown that runs before this pool ends.
  sql.on('error', () => {});
  t.teardown(async () => {
    for (const res of held) res.destroy();
    await sql.end();
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  t.teardown(() => agent.destroy());
  const node = async () => {
    const service = await createService({
      databaseUrl,
      clock: systemClock,
      logger: createLogger('warn', pino.destination(2)),
      config: { keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 }, httpAdapter: testHttpAdapter() },
    });
    t.teardown(() => service.close());
    return { service, port: await service.listen(0, '127.0.0.1') };
  };
  const a = await node();
  const { refs } = await a.service.applyManifest(conversationWorkspace(upstream.baseUrl));
  const b = await node();
  const api = (port: number, method: string, path: string, body?: unknown) =>
    send(agent, port, method, `/api/v1${path}`, { authorization: `Bearer ${refs['ada-key']}` }, body);
  const gets = () => upstream.received.filter((r) => r.method === 'GET').length;
  const untilGets = async (n: number) => {
    while (gets() < n) await upstream.nextRequest();
  };
  const status = async (id: string) => (await sql.query('SELECT status, error_code FROM executions WHERE id = $1', [id])).rows[0];

  const opened = await api(a.port, 'POST', `/agents/${refs.lookup}/sessions`, { message: LOOKUP, callerCredentials: crmCredentials() });
  t.equal(opened.status, 202, opened.text);
  const sessionId = opened.json.sessionId as string;
  await untilGets(1);
  const queued = await api(a.port, 'POST', `/agents/sessions/${sessionId}/messages`, { message: LOOKUP, callerCredentials: crmCredentials() });
  t.equal(queued.status, 200, queued.text);
  const second = queued.json.executionId as string;

  // B's next read of this session's queue answers what the database says, then waits for the test.
  const executions = b.service.store.repos.executions;
  const read = executions.firstUnsettled.bind(executions);
  let reached!: () => void;
  const readDone = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  executions.firstUnsettled = async (id: string) => {
    const row = await read(id);
    if (id === sessionId) {
      executions.firstUnsettled = read;
      reached();
      await gate;
    }
    return row;
  };
  const cancelling = api(b.port, 'POST', `/agents/sessions/${sessionId}/cancel`, { executionId: second });
  await readDone;
  t.not((await read(sessionId))?.id, second, 'B read the queue while the turn ahead still ran');

  // A finishes the turn ahead, starts the queued execution and is held in its upstream call.
  crmResponder({ method: 'GET', pathname: '/contacts/c-1' } as RecordedRequest, held[0]!);
  await untilGets(2);
  t.match(await status(second), { status: 'running' }, 'A started the execution B is cancelling');
  const aborted = new Promise<void>((resolve) => (onDrop = resolve));
  const sentAt = Date.now();
  release();
  const answer = await cancelling;
  t.same([answer.status, answer.json], [200, { executionId: second, status: 'cancelled' }], 'the cancel answers as on one node');
  await Promise.race([aborted, sleep(2 * AT_ONCE_MS)]);
  const abortMs = Date.now() - sentAt;
  t.ok(abortMs < AT_ONCE_MS, `A closed the started execution's upstream call ${abortMs} ms after the cancel went on (the lease was taken)`);

  await Promise.all([a.service.services.sessions.dispatcher.idle(), b.service.services.sessions.dispatcher.idle()]);
  t.match(await status(second), { status: 'failed', error_code: 'CANCELLED' });
  const terminal = await sql.query(`SELECT count(*) AS n FROM session_events WHERE type = 'turn.completed' AND payload::jsonb ->> 'executionId' = $1`, [second]);
  t.equal(Number(terminal.rows[0].n), 1, 'one terminal event for the cancelled execution');
  const lease = await sql.query('SELECT holder FROM resource_leases WHERE resource = $1', [`session:${sessionId}`]);
  t.equal(lease.rows[0]?.holder ?? null, null, 'no node holds the session any more');

  // The session moves on.
  upstream.respond(crmResponder);
  const third = await api(b.port, 'POST', `/agents/sessions/${sessionId}/messages`, { message: LOOKUP, callerCredentials: crmCredentials() });
  t.equal(third.status, 200, third.text);
  for (const deadline = Date.now() + 20_000; (await status(third.json.executionId)).status !== 'completed'; ) {
    if (Date.now() > deadline) throw new Error(`the next turn did not complete: ${JSON.stringify(await status(third.json.executionId))}`);
    await sleep(50);
  }
  t.pass('the next message ran to completion');
});
