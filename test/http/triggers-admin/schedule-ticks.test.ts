// Schedule triggers: ticks are durable timers in the trigger's zone; a tick fires with no caller (rule 7); a missed tick fires once on boot.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../../runtime/clock.js';
import { SCHEDULE_TICK } from '../../../runtime/triggers/schedule-ticks.js';
import { testKeyRing } from '../../runtime/manifest/manifest-fixtures.js';
import { startTriggerServer } from './trigger-fixture.js';
import { sqlReader } from '../../helpers/sql.js';

const HOUR = 3_600_000;

t.test('advancing the clock past the cron slot fires once: caller-required subscribers refused, the others start, the next slot armed', async (t) => {
  const f = await startTriggerServer(t);
  const created = await f.create('ada', {
    type: 'schedule',
    domainId: f.refs.sales,
    name: 'Morning sync',
    cron: '30 9 * * *',
    timezone: 'America/New_York',
    input: { id: 'c-7' },
    subscribers: [f.refs.upgrader, f.refs.enrich],
  });
  t.equal(created.status, 201);
  const id = created.json.trigger.id;
  // 2026-11-22T12:00Z is 07:00 in New York (EST, UTC-5): the next 09:30 is 14:30Z the same day.
  t.equal(created.json.trigger.config.nextRunAt, '2026-11-22T14:30:00.000Z');
  const { repos } = f.server.service.store;

  f.clock.advance(2 * HOUR);
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 0, 'nothing before the slot');

  f.clock.advance(31 * 60_000);
  await f.settle();
  const [run] = (await repos.triggerRuns.page(id, null, 10));
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 1, 'one firing');
  t.match(run, { source: 'schedule', firedBy: null, outcome: 'partial' });
  const results = (await repos.triggerRuns.resultsOf([run!.id]));
  t.match(results[0], { automationId: f.refs.upgrader, status: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED', sessionId: null });
  t.match(results[1], { automationId: f.refs.enrich, status: 'started', code: null });
  const session = (await repos.sessions.session(results[1]!.sessionId!))!;
  t.equal(session.origin, 'schedule');
  t.equal(session.createdBy, null, 'no caller');
  t.equal(f.upstream.received.filter((r) => r.pathname === '/contacts/c-7').length, 1, 'the flow got the configured input');
  t.equal(await f.server.service.services.scheduleTicks.nextRunAt(id), Date.UTC(2026, 10, 23, 14, 30), 'next day, 09:30 New York');

  // The Run history read shows it like any firing.
  const runs = await fetch(`${f.server.url}/api/v1/triggers/${id}/runs`, { headers: { cookie: await f.cookie('ada') } }).then((r) => r.json() as Promise<any>);
  t.equal(runs.runs[0].source, 'schedule');
  t.equal(runs.runs[0].subscribers[0].code, 'CALLER_CREDENTIALS_REQUIRED');

  f.clock.advance(24 * HOUR);
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 2, 'the next day fires again');
});

t.test('manifest-applied schedule triggers are armed; a manifest change re-arms, pausing disarms', async (t) => {
  const f = await startTriggerServer(t);
  const ticks = f.server.service.services.scheduleTicks;
  // "nightly": 0 2 * * * Europe/Paris -> 01:00Z (CET).
  t.equal(await ticks.nextRunAt(f.refs.nightly!), Date.UTC(2026, 10, 23, 1));
  const manifest = (await import('./trigger-fixture.js')).triggerWorkspace(f.upstream.baseUrl);
  const nightly = manifest.organizations[0].triggers.find((x: any) => x.ref === 'nightly');
  nightly.cron = '0 5 * * *';
  await f.server.service.applyManifest(manifest);
  t.equal(await ticks.nextRunAt(f.refs.nightly!), Date.UTC(2026, 10, 23, 4), 're-armed for the new cron');
  nightly.active = false;
  await f.server.service.applyManifest(manifest);
  t.equal(await ticks.nextRunAt(f.refs.nightly!), null, 'paused: no tick');
  f.clock.advance(48 * HOUR);
  await f.settle();
  t.equal((await f.server.service.store.repos.triggerRuns.countOfTrigger(f.refs.nightly!)), 0);
});

t.test('a tick armed for an older cron re-arms instead of firing', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const row = (await repos.triggers.trigger(f.refs.nightly!))!;
  // Changed behind the scheduler's back (no reconcile): the pending tick still says 0 2 * * * Paris.
  (await repos.triggers.updateTrigger({ ...row, config: { cron: '0 9 * * *', timezone: 'UTC', input: { id: 'c-1' } } }));
  f.clock.set(Date.UTC(2026, 10, 23, 1, 0, 1));
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(row.id)), 0, 'the stale slot did not fire');
  t.equal(await f.server.service.services.scheduleTicks.nextRunAt(row.id), Date.UTC(2026, 10, 23, 9));
  f.clock.set(Date.UTC(2026, 10, 23, 9, 0, 1));
  await f.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(row.id)), 1);
});

t.test('a tick missed while the service was down fires once at boot, not once per missed slot', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-ticks-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'db.sqlite');
  const keyRing = testKeyRing();
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));

  const first = await startTriggerServer(t, { dbPath, clock, keyRing });
  const created = await first.create('ada', { type: 'schedule', domainId: first.refs.sales, name: 'Every 6h', cron: '0 */6 * * *', subscribers: [first.refs.upgrader] });
  const id = created.json.trigger.id;
  t.equal(created.json.trigger.config.nextRunAt, '2026-11-22T18:00:00.000Z');
  await first.server.close();

  // Down for three days: twelve 6-hour slots pass.
  clock.set(Date.UTC(2026, 10, 25, 13, 15));
  const second = await startTriggerServer(t, { dbPath, clock, keyRing });
  await second.settle();
  const { repos } = second.server.service.store;
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 1, 'one catch-up firing at boot');
  const [run] = (await repos.triggerRuns.page(id, null, 5));
  t.equal(run!.createdAt, Date.UTC(2026, 10, 25, 13, 15), 'fired at boot time');
  t.equal((await repos.triggerRuns.resultsOf([run!.id]))[0]!.code, 'CALLER_CREDENTIALS_REQUIRED');
  t.equal(await second.server.service.services.scheduleTicks.nextRunAt(id), Date.UTC(2026, 10, 25, 18), 'then the next future slot');
  const pending = (await sqlReader(second.server.service).get(`SELECT count(*) AS n FROM timers WHERE kind = ? AND target_id = ? AND fired_at IS NULL`, SCHEDULE_TICK, id)) as { n: number };
  t.equal(pending.n, 1, 'exactly one pending tick');

  clock.advance(5 * HOUR);
  await second.settle();
  t.equal((await repos.triggerRuns.countOfTrigger(id)), 2, 'and it keeps ticking');
});
