// service.close() on PostgreSQL (issue 16): a draining node stops its work, queries nothing after close, holds no connection.
import { Writable } from 'node:stream';
import t from 'tap';
import pg from 'pg';
import pino from 'pino';
import { createService } from '../../../http/service.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { ManualClock } from '../../../runtime/clock.js';
import { DEFAULT_CONFIG } from '../../../runtime/config.js';
import type { PostgresStorage } from '../../../storage/postgres/storage.js';
import { bearer, call } from '../../helpers/http.js';
import { usePostgres } from '../../helpers/postgres.js';
import { startRecordingUpstream } from '../../runtime/tools/recording-upstream.js';
import { conversationWorkspace, crmResponder } from './conversation-fixture.js';

const pgServer = await usePostgres(t);

/** Every query, checkout or new connection the pool is asked for once its end() was called: none may come. */
function watchPool(pool: PostgresStorage['pool']): string[] {
  const late: string[] = [];
  let ending = false;
  const patched = pool as unknown as Record<'query' | 'connect' | 'end', (...args: unknown[]) => unknown>;
  const original = { query: patched.query.bind(pool), connect: patched.connect.bind(pool), end: patched.end.bind(pool) };
  patched.query = (...args) => {
    if (ending) late.push(`query ${String(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text).slice(0, 80)}`);
    return original.query(...args);
  };
  patched.connect = (...args) => {
    if (ending) late.push('connect');
    return original.connect(...args);
  };
  patched.end = (...args) => {
    ending = true;
    return original.end(...args);
  };
  pool.on('connect', () => {
    if (ending) late.push('new connection');
  });
  return late;
}

t.test('close() with a turn in flight and two queued: no query after close, no connection left, the database drops at once', { skip: pgServer.skip }, async (t) => {
  const databaseUrl = await pgServer.database(t);
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const held: Array<() => void> = [];
  upstream.respond((request, res) => held.push(() => crmResponder(request, res)));
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }));
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
  // A short lease: the takeover scan and the lease heartbeat both tick several times while the test waits below.
  const service = await createService({
    databaseUrl,
    clock,
    logger,
    config: { ...DEFAULT_CONFIG, pgSessionLeaseMs: 90, keyRateLimit: { ratePerSecond: 0, burst: 0 }, ipRateLimit: { ratePerSecond: 0, burst: 0 } },
  });
  const late = watchPool((service.store as PostgresStorage).pool);
  const port = await service.listen(0, '127.0.0.1');
  const { refs } = await applyManifest(service.store, conversationWorkspace(upstream.baseUrl), { clock, keyRing: service.services.keyRing });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const opened = await call(`${base}/agents/${refs.lookup}/sessions`, { method: 'POST', headers: bearer(refs['ada-key']!), json: { message: 'id: c-1' } });
  t.equal(opened.status, 202, opened.text);
  await upstream.nextRequest();
  for (const id of ['c-2', 'c-3']) {
    const queued = await call(`${base}/agents/sessions/${opened.json.sessionId}/messages`, { method: 'POST', headers: bearer(refs['ada-key']!), json: { message: `id: ${id}` } });
    t.equal(queued.status, 200, queued.text);
  }

  await service.close();
  // What a stray loop would do now: the held tool call answers, timers fire (lease 90 ms: heartbeat and scan every 30 ms).
  held.forEach((release) => release());
  await new Promise((resolve) => setTimeout(resolve, 300));

  t.same(late, [], 'nothing asked the pool once it began to end');
  t.equal((service.store as PostgresStorage).pool.totalCount, 0, 'no pooled connection is left');
  // Without FORCE: refused while any connection (pooled or LISTEN) of the closed service is still on the database.
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: databaseUrl.replace(`/${name}`, '/postgres') });
  await admin.connect();
  t.teardown(() => admin.end());
  await t.resolves(admin.query(`DROP DATABASE ${name}`), 'the database drops without FORCE');
  t.notOk(logs.some((line) => /"level":50/.test(line) && /engine run failed/.test(line)), 'the abandoned turn is not reported as a failure');
});
