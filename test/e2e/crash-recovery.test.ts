// SIGKILL at random points of a mixed load, 22 times on one file DB: nothing answered is lost, duplicated or stuck.
/*
 * A child process runs the whole service (test/e2e/crash.child.ts) on a temp file database with the contract
 * workspace applied, its crm pointed at a loopback upstream run HERE, so upstream calls outlive the children and
 * can be counted. The parent drives opens on `lookup`, appended messages, keyed and unkeyed fires (cut-off keys
 * are retried after the restart), opens on `upgrader` that park on an approval, approvals and rejections, signed
 * inbound events and partner provisioning, then SIGKILLs the child at a random point: mid-load after a random
 * number of answers, right at ready (while recovered turns run), or at a random moment of the boot itself
 * (opening the file, resuming turns, firing overdue timers). The next child boots on the same file.
 *
 * Time: each boot's clock runs 10 minutes ahead of the previous one (the child adds an offset to Date.now()),
 * so what was due meanwhile falls due while no process runs: the `ticker` schedule (every 5 minutes), caller
 * grants that expire 3 minutes after their fire, provisioning leases (5 minutes). Boot k starts at T0 + k x 10 min
 * + 1 min and a cycle lasts seconds, so each boot owes the one tick that fell due while it was down.
 *
 * After a last clean boot has let recovery finish (no polling: the child answers "idle" when its queues are
 * empty), the checks in crash-checks.ts hold the database to every answer the parent received.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase } from '../../storage/database.js';
import { openStore } from '../../storage/store.js';
import { createChildPool, type LiveChild } from '../helpers/crash-harness.js';
import { startRecordingUpstream } from '../runtime/tools/recording-upstream.js';
import { checkAnswers, checkApprovalsAndWrites, checkClaims, checkTimers, checkTurns, inspectCrash, resumeSuspended, type CrashFigures } from './crash-checks.js';
import { Ledger, crashWorkspace, type Target } from './crash-ledger.js';
import { drive } from './crash-load.js';

const KILLS = 22;
const WORKERS = 8;
const STEP_MS = 10 * 60_000;
/** On a 10-minute boundary, and hours away from the `nightly` schedule (02:00 Paris). */
const T0 = Date.UTC(2026, 10, 22, 10, 0);
const bootStart = (k: number): number => T0 + k * STEP_MS + 60_000;

// 23 boots (each child is warmed while the previous one runs) plus the checks; about 1-2 minutes when quiet.
t.setTimeout(240_000);

t.test(`${KILLS} SIGKILLs at random points of a mixed load lose, duplicate and strand nothing`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'crash.db');

  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  upstream.respond((request, res) => {
    const answer = () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      const id = decodeURIComponent(request.pathname.replace(/^\/contacts\//, ''));
      res.end(JSON.stringify(request.method === 'GET' ? { id, name: `Contact ${id}`, tier: 'pro' } : { id, ...JSON.parse(request.body || '{}') }));
    };
    // Some calls take a few ms, so kills land while calls are in flight, not only between them.
    if (Math.random() < 0.4) setTimeout(answer, Math.floor(Math.random() * 15));
    else answer();
  });

  const pool = createChildPool();
  let live: LiveChild | null = null;
  t.teardown(async () => {
    await live?.stop();
    await pool.close();
  });

  const ledger = new Ledger();
  const figures: CrashFigures = { boots: 0, unsettledAtKill: 0, suspendedAtKill: 0, callsInFlightAtKill: 0, claimsInProgressAtKill: 0, killsAtReady: 0, killsBeforeReady: 0 };
  /** Boots that announced ready (so had finished recovery: overdue timers fired). */
  const ready = new Set<number>();
  let refs: Record<string, string> = {};
  const order = (k: number) => () => ({ dbPath, clockOffsetMs: bootStart(k) - Date.now(), manifest: k === 0 ? crashWorkspace(upstream.baseUrl) : undefined });
  const boot = async (k: number, last = false): Promise<Target> => {
    live = await pool.boot(order(k), { last });
    if (k === 0) refs = live.refs;
    figures.boots += 1;
    ready.add(k);
    const offset = live.order.clockOffsetMs;
    return { port: live.port, refs, now: () => Date.now() + offset };
  };

  for (let k = 0; k < KILLS; k++) {
    if (k % 7 === 5) {
      // Killed at a random moment of the boot (which takes 0.3-1.2 s): opening the file, resuming turns or firing
      // overdue timers, before any request.
      const { wasReady } = await pool.crashDuringBoot(order(k), Math.floor(Math.random() * 1000));
      figures.boots += 1;
      figures.killsBeforeReady += 1;
      if (wasReady) ready.add(k);
    } else {
      const target = await boot(k);
      const child = live!;
      // Right at ready, while recovered turns run (k % 7 === 3), or mid-load after a random number of answers.
      const killAfter = k % 7 === 3 ? 0 : 3 + Math.floor(Math.random() * 50);
      if (killAfter === 0) figures.killsAtReady += 1;
      await drive(ledger, target, { workers: WORKERS, killAfter, kill: () => child.kill() });
      live = null;
    }
    inspectCrash(openDatabase(dbPath, { readonly: true }), figures);
  }

  // The last boot is not killed: recovery finishes, then every owed retry is answered.
  const target = await boot(KILLS, true);
  await live!.idle();
  await drive(ledger, target, { workers: WORKERS, killAfter: null });
  await live!.idle();
  t.same(ledger.wrong, [], 'every answer was one the contract allows');
  const cutOff = Object.values(ledger.cut).reduce((n, c) => n + c, 0);
  t.ok(cutOff > 0, `${cutOff} requests were cut off by the kills (the kills landed mid-stream)`);

  // Before anything is approved: each parked turn still names its approval; approving it now works once.
  const readonly = openDatabase(dbPath, { readonly: true });
  const resumed = await resumeSuspended(t, readonly, target, live!);
  readonly.close();
  await live!.stop();
  live = null;

  const store = openStore({ path: dbPath });
  t.teardown(() => store.close());
  t.equal(store.integrityCheck(), 'ok', 'PRAGMA integrity_check');
  const db = store.db;
  checkAnswers(t, db, ledger, refs);
  checkTurns(t, db);
  checkApprovalsAndWrites(t, db, ledger, upstream.received, resumed);
  checkClaims(t, db, ledger, refs);
  checkTimers(t, db, refs, { boots: KILLS + 1, bootStart, finalStart: bootStart(KILLS), wasReady: (k) => ready.has(k) });

  const reads = upstream.received.filter((r) => r.method === 'GET').length;
  const readCalls = db.prepare("SELECT COUNT(*) FROM tool_calls WHERE tool = 'crm.get_contact'").pluck().get() as number;
  t.comment(`upstream: ${reads} reads for ${readCalls} crm.get_contact calls (readonly calls in flight at a kill are repeated)`);
  t.comment(
    `figures: ${figures.boots} boots, ${KILLS} SIGKILLs (${figures.killsBeforeReady} while booting, ${figures.killsAtReady} right at ready); at the kills ${figures.unsettledAtKill} turns were ` +
      `queued/running, ${figures.suspendedAtKill} suspended, ${figures.callsInFlightAtKill} tool calls in flight, ` +
      `${figures.claimsInProgressAtKill} provisioning claims in progress; cut off: ${JSON.stringify(ledger.cut)}; ` +
      `${ledger.replays} keyed replays matched; ${resumed.length} suspended turns approved after the last restart`,
  );
});
