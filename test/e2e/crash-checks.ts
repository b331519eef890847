// The crash test's verdicts: the database after 22 SIGKILLs, held to every answer the load received.
/*
 * Each check gathers the offending ids into one list and asserts it is empty, so a failure names what broke
 * (and a pass stays one line) however many thousand rows were checked.
 */
import { Agent } from 'node:http';
import type { Test } from 'tap';
import type { SqliteDatabase } from '../../storage/database.js';
import { send, type LiveChild } from '../helpers/crash-harness.js';
import type { RecordedRequest } from '../runtime/tools/recording-upstream.js';
import type { Ledger, Target } from './crash-ledger.js';

type Tap = Pick<Test, 'same' | 'equal' | 'ok' | 'comment'>;

export interface CrashFigures {
  boots: number;
  killsBeforeReady: number;
  killsAtReady: number;
  /** Summed over the kills: what each crash left for the next boot to recover. */
  unsettledAtKill: number;
  suspendedAtKill: number;
  callsInFlightAtKill: number;
  claimsInProgressAtKill: number;
}

const TERMINAL = new Set(['completed', 'failed', 'rejected']);
/** Execution status -> the session-turn machine state its snapshot must be in (they commit together). */
const MACHINE_STATE: Record<string, string> = {
  queued: 'queued',
  running: 'running',
  suspended: 'suspended',
  resume_queued: 'resumeQueued',
  completed: 'completed',
  failed: 'failed',
  rejected: 'rejected',
};

const count = (db: SqliteDatabase, sql: string, ...params: unknown[]): number => db.prepare(sql).pluck().get(...params) as number;

/** Between a kill and the next boot: what the crash left in flight (figures for the report). */
export function inspectCrash(db: SqliteDatabase, figures: CrashFigures): void {
  try {
    figures.unsettledAtKill += count(db, "SELECT COUNT(*) FROM executions WHERE status IN ('queued', 'running', 'resume_queued')");
    figures.suspendedAtKill += count(db, "SELECT COUNT(*) FROM executions WHERE status = 'suspended'");
    figures.callsInFlightAtKill += count(db, "SELECT COUNT(*) FROM tool_calls WHERE status IN ('running', 'pending')");
    figures.claimsInProgressAtKill += count(db, "SELECT COUNT(*) FROM provisioning_claims WHERE state = 'in_progress'");
  } finally {
    db.close();
  }
}

export interface Resumed {
  executionId: string;
  approvalId: string;
}

/**
 * After the last boot settled, before any approval: nothing is queued or running, and every parked turn still
 * names its approval (row, snapshot, tool call, GET view agree). Then each is approved over HTTP by that id.
 */
export async function resumeSuspended(t: Tap, db: SqliteDatabase, target: Target, live: LiveChild): Promise<Resumed[]> {
  t.equal(count(db, "SELECT COUNT(*) FROM executions WHERE status IN ('queued', 'running', 'resume_queued')"), 0, 'recovery left no turn queued or running');
  const parked = db.prepare("SELECT id, session_id FROM executions WHERE status = 'suspended' ORDER BY created_at").all() as Array<{ id: string; session_id: string }>;
  const broken: string[] = [];
  const resumed: Resumed[] = [];
  const http = new Agent({ keepAlive: true, maxSockets: 8 });
  const ada = { authorization: `Bearer ${target.refs['ada-key']}` };
  try {
    await Promise.all(
      parked.map(async ({ id, session_id: sessionId }) => {
        const pending = db.prepare("SELECT id, tool_call_id FROM approvals WHERE execution_id = ? AND status = 'pending'").all(id) as Array<{ id: string; tool_call_id: string }>;
        if (pending.length !== 1) return void broken.push(`${id}: ${pending.length} pending approvals`);
        const approvalId = pending[0]!.id;
        const snapshot = JSON.parse(db.prepare('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?').pluck().get(id) as string);
        if (snapshot.value !== 'suspended' || snapshot.context?.pendingApproval?.approvalId !== approvalId) {
          return void broken.push(`${id}: snapshot ${snapshot.value} names ${snapshot.context?.pendingApproval?.approvalId}, the row ${approvalId}`);
        }
        const call = db.prepare('SELECT status, approval_id FROM tool_calls WHERE id = ?').get(pending[0]!.tool_call_id) as { status: string; approval_id: string };
        if (call.status !== 'awaiting_approval' || call.approval_id !== approvalId) return void broken.push(`${id}: gated call ${call.status} ${call.approval_id}`);
        const view = await send(http, target.port, 'GET', `/api/v1/agents/sessions/${sessionId}`, ada);
        if (view.json?.pendingApprovalId !== approvalId) return void broken.push(`${id}: the view names ${view.json?.pendingApprovalId}`);
        const approved = await send(http, target.port, 'POST', `/api/v1/agents/sessions/${sessionId}/turn-approval`, ada, { decision: 'approved', approvalId });
        if (approved.status !== 200 || approved.json?.approvalId !== approvalId) return void broken.push(`${id}: approving answered ${approved.status} ${approved.text}`);
        resumed.push({ executionId: id, approvalId });
      }),
    );
  } finally {
    http.destroy();
  }
  t.same(broken, [], `each of ${parked.length} suspended turns kept its approvalId (row, snapshot, gated call, view) and took the approval`);
  await live.idle();
  return resumed;
}

/** Every answered 202/200 exists exactly once, with what its answer named; unanswered requests add at most themselves. */
export function checkAnswers(t: Tap, db: SqliteDatabase, ledger: Ledger, refs: Record<string, string>): void {
  const session = db.prepare('SELECT automation_id, origin, trigger_run_id FROM sessions WHERE id = ?');
  const execution = db.prepare('SELECT session_id, entry FROM executions WHERE id = ?');
  const missing: string[] = [];
  for (const open of ledger.opens) {
    if (open.answer === undefined) continue;
    const s = session.get(open.answer.sessionId) as { automation_id: string; origin: string } | undefined;
    const e = execution.get(open.answer.executionId) as { session_id: string; entry: string } | undefined;
    if (s?.automation_id !== refs[open.agent] || s.origin !== 'api' || e?.session_id !== open.answer.sessionId || e.entry !== 'open') {
      missing.push(`open ${open.contactId}: session ${JSON.stringify(s)}, execution ${JSON.stringify(e)}`);
    }
  }
  for (const append of ledger.appends) {
    if (append.answer === undefined) continue;
    const e = execution.get(append.answer.executionId) as { session_id: string; entry: string } | undefined;
    if (e?.session_id !== append.sessionId || e.entry !== 'message') missing.push(`append ${append.answer.executionId}: ${JSON.stringify(e)}`);
  }
  const runs = db.prepare('SELECT COUNT(*) FROM trigger_runs WHERE id = ?').pluck();
  const sessionsOfRun = db.prepare('SELECT id, automation_id FROM sessions WHERE trigger_run_id = ? ORDER BY id');
  for (const fire of ledger.fires) {
    if (fire.answer === undefined) continue;
    if (runs.get(fire.answer.runId) !== 1) missing.push(`fire ${fire.key}: run ${fire.answer.runId} missing`);
    const stored = (sessionsOfRun.all(fire.answer.runId) as Array<{ id: string; automation_id: string }>).map((s) => `${s.automation_id}/${s.id}`);
    const named = fire.answer.sessions.map((s) => `${s.automationId}/${s.sessionId}`);
    if (JSON.stringify(stored.sort()) !== JSON.stringify(named.sort())) missing.push(`fire ${fire.key}: sessions ${stored} != answered ${named}`);
  }
  const answered = (list: Array<{ answer?: unknown }>) => list.filter((r) => r.answer !== undefined).length;
  t.same(missing, [], `every answered open (${answered(ledger.opens)}), append (${answered(ledger.appends)}) and fire (${answered(ledger.fires)}) exists with what its answer named`);

  // Unanswered requests (cut off by a kill) may or may not have committed: at most one row each, never more.
  const within = (what: string, stored: number, list: Array<{ answer?: unknown }>) => {
    const low = answered(list);
    t.ok(stored >= low && stored <= list.length, `${what}: ${stored} stored, ${low} answered, ${list.length - low} cut off`);
  };
  for (const agent of ['lookup', 'upgrader'] as const) {
    within(`sessions opened on ${agent}`, count(db, "SELECT COUNT(*) FROM sessions WHERE automation_id = ? AND origin = 'api'", refs[agent]), ledger.opens.filter((o) => o.agent === agent));
  }
  within('appended messages', count(db, "SELECT COUNT(*) FROM executions WHERE entry = 'message'"), ledger.appends);
  within('unkeyed API firings', count(db, "SELECT COUNT(*) FROM trigger_runs WHERE source = 'api' AND idempotency_key IS NULL"), ledger.fires.filter((f) => f.key === null));

  const keyed = ledger.fires.filter((f) => f.key !== null);
  const unanswered = keyed.filter((f) => f.answer === undefined).map((f) => f.key);
  t.same(unanswered, [], 'every keyed fire was answered in the end (retried after each kill)');
  const runsOfKey = db.prepare('SELECT id FROM trigger_runs WHERE idempotency_key = ?').pluck();
  const duplicated = keyed.filter((f) => {
    const ids = runsOfKey.all(f.key) as string[];
    return ids.length !== 1 || ids[0] !== f.answer?.runId;
  });
  const retried = keyed.filter((f) => f.attempts > 1).length;
  t.same(duplicated.map((f) => f.key), [], `each of ${keyed.length} keys fired exactly once (${retried} were sent again after a kill)`);

  const delivery = db.prepare('SELECT status, run_id FROM event_deliveries WHERE trigger_id = ? AND message_id = ?');
  const eventRuns = db.prepare("SELECT COUNT(*) FROM trigger_runs WHERE id = ? AND source = 'event'").pluck();
  const badEvents = ledger.events.filter((e) => {
    const row = delivery.get(refs.signup, e.messageId) as { status: string; run_id: string | null } | undefined;
    return e.answer === undefined || row?.status !== 'fired' || row.run_id !== e.answer.runId || eventRuns.get(row.run_id) !== 1;
  });
  const redelivered = ledger.events.filter((e) => e.attempts > 1);
  t.same(badEvents.map((e) => e.messageId), [], `each of ${ledger.events.length} inbound events fired exactly once (${redelivered.length} redelivered after a kill, ${redelivered.filter((e) => e.answer?.duplicate).length} of them found already fired)`);
  const firings = count(db, "SELECT COUNT(*) FROM trigger_runs WHERE source = 'event'");
  t.equal(firings, count(db, "SELECT COUNT(*) FROM event_deliveries WHERE status = 'fired'"), 'no event firing without its dedupe row');

  const orphans = count(db, 'SELECT COUNT(*) FROM sessions WHERE trigger_run_id IS NOT NULL AND trigger_run_id NOT IN (SELECT id FROM trigger_runs)');
  t.equal(orphans, 0, 'no fired session without its Run history row');
  const opens = db
    .prepare("SELECT s.id FROM sessions s LEFT JOIN executions e ON e.session_id = s.id AND e.entry = 'open' GROUP BY s.id HAVING COUNT(e.id) != 1")
    .pluck()
    .all();
  t.same(opens, [], 'every session has exactly one opening execution');
  const userMessages = db
    .prepare(
      `SELECT e.id FROM executions e JOIN sessions s ON s.id = e.session_id JOIN automations a ON a.id = s.automation_id
       WHERE a.kind = 'agent' AND (SELECT COUNT(*) FROM messages m WHERE m.execution_id = e.id AND m.role = 'user') != 1`,
    )
    .pluck()
    .all();
  t.same(userMessages, [], 'every agent turn has exactly one user message');
}

/** Every turn settled, each failure with a recorded reason, each snapshot in the state its row says. */
export function checkTurns(t: Tap, db: SqliteDatabase): void {
  const executions = db
    .prepare(
      `SELECT e.id, e.status, e.error_code, a.kind, snap.machine, snap.status AS snap_status, snap.snapshot
       FROM executions e JOIN sessions s ON s.id = e.session_id JOIN automations a ON a.id = s.automation_id
       LEFT JOIN actor_snapshots snap ON snap.actor_id = e.id`,
    )
    .all() as Array<{ id: string; status: string; error_code: string | null; kind: string; machine: string | null; snap_status: string | null; snapshot: string | null }>;
  const unsettled = executions.filter((e) => !TERMINAL.has(e.status)).map((e) => `${e.id} ${e.status}`);
  t.same(unsettled, [], `all ${executions.length} executions reached a terminal state`);
  const unexplained = executions.filter((e) => e.status === 'failed' && !e.error_code).map((e) => e.id);
  t.same(unexplained, [], `every failed execution (${executions.filter((e) => e.status === 'failed').length}) records why`);
  const drift = executions
    .filter((e) => e.kind === 'agent')
    .filter((e) => {
      if (e.machine !== 'session-turn') return true;
      // A turn its supervisor gave up on is retired (snapshot 'failed') and its execution failed TURN_FAILED.
      if (e.snap_status === 'failed') return e.status !== 'failed';
      return (JSON.parse(e.snapshot!) as { value: unknown }).value !== MACHINE_STATE[e.status];
    })
    .map((e) => `${e.id}: row ${e.status}, snapshot ${e.snapshot?.slice(0, 80)}`);
  t.same(drift, [], 'every agent turn snapshot is in the state its execution row says (they commit together)');
  const open = db.prepare("SELECT id, status FROM tool_calls WHERE status IN ('pending', 'running', 'awaiting_approval')").all();
  t.same(open, [], 'no tool call left pending, running or awaiting approval');
  const silent = count(db, "SELECT COUNT(*) FROM tool_calls WHERE status = 'failed' AND (error_code IS NULL OR error_message IS NULL)");
  t.equal(silent, 0, 'every failed tool call records why');
  // Only a call that may have changed something upstream is given up on; a readonly one in flight is repeated.
  const interrupted = Object.fromEntries(db.prepare("SELECT readonly, COUNT(*) FROM tool_calls WHERE error_code = 'INTERRUPTED' GROUP BY readonly").raw().all() as Array<[number, number]>);
  t.equal(interrupted[1] ?? 0, 0, `no readonly call was failed INTERRUPTED (${interrupted[0] ?? 0} writes were)`);
  // What stream clients were told: each settled execution announced once, with its outcome; seqs without holes.
  const completions = db
    .prepare(
      `SELECT e.id FROM executions e LEFT JOIN session_events ev
         ON ev.session_id = e.session_id AND ev.type = 'turn.completed' AND json_extract(ev.payload, '$.executionId') = e.id
       GROUP BY e.id HAVING COUNT(ev.seq) != 1 OR MAX(json_extract(ev.payload, '$.outcome')) != MAX(e.status)`,
    )
    .pluck()
    .all();
  t.same(completions, [], 'each execution has exactly one turn.completed event, naming its outcome');
  const holes = db.prepare('SELECT session_id FROM session_events GROUP BY session_id HAVING MAX(seq) != COUNT(*)').pluck().all();
  t.same(holes, [], 'every session stream is numbered 1..n without holes or repeats');
  const grants = count(db, "SELECT COUNT(*) FROM caller_grants g JOIN executions e ON e.id = g.execution_id WHERE e.status IN ('completed', 'failed', 'rejected')");
  t.equal(grants, 0, 'no caller grant outlives its settled execution');
}

/**
 * The gated write (crm.update_contact, PATCH /contacts/{id}) reaches the upstream at most once per approval:
 * exactly once when its call succeeded, at most once when a kill interrupted it, never when rejected or expired.
 */
export function checkApprovalsAndWrites(t: Tap, db: SqliteDatabase, ledger: Ledger, received: readonly RecordedRequest[], resumed: readonly { approvalId: string }[]): void {
  const patches = new Map<string, RecordedRequest[]>();
  for (const request of received) {
    if (request.method !== 'PATCH') continue;
    const id = decodeURIComponent(request.pathname.replace(/^\/contacts\//, ''));
    patches.set(id, [...(patches.get(id) ?? []), request]);
  }
  const twice = [...patches].filter(([, list]) => list.length > 1).map(([id, list]) => `${id} x${list.length}`);
  t.same(twice, [], `no contact was written twice (${patches.size} contacts written)`);

  const approvals = db
    .prepare(
      `SELECT ap.id, ap.status, ap.edited_args, ap.execution_id, tc.status AS call_status, tc.error_code, tc.args, e.status AS execution_status
       FROM approvals ap JOIN tool_calls tc ON tc.id = ap.tool_call_id JOIN executions e ON e.id = ap.execution_id`,
    )
    .all() as Array<{ id: string; status: string; edited_args: string | null; execution_id: string; call_status: string; error_code: string | null; args: string; execution_status: string }>;
  const tally: Record<string, number> = {};
  const wrong: string[] = [];
  for (const a of approvals) {
    const contact = (JSON.parse(a.args) as { id: string }).id;
    const writes = patches.get(contact) ?? [];
    const outcome = a.status === 'approved' ? `${a.call_status}${a.error_code ? `:${a.error_code}` : ''}` : a.status;
    tally[outcome] = (tally[outcome] ?? 0) + 1;
    if (a.status === 'approved' && a.call_status === 'succeeded') {
      if (writes.length !== 1) wrong.push(`${a.id}: succeeded with ${writes.length} writes`);
      const note = a.edited_args === null ? undefined : (JSON.parse(a.edited_args) as { note?: string }).note;
      if (note !== undefined && JSON.parse(writes[0]?.body || '{}').note !== note) wrong.push(`${a.id}: the write does not carry the edited note`);
    } else if (a.status === 'approved' && a.error_code === 'INTERRUPTED') {
      if (writes.length > 1) wrong.push(`${a.id}: interrupted, yet written ${writes.length} times`);
    } else if (a.status === 'approved' && a.error_code === 'CALLER_CREDENTIAL_EXPIRED') {
      if (writes.length !== 0) wrong.push(`${a.id}: the grant had expired, yet written`);
    } else if (a.status === 'rejected') {
      if (writes.length !== 0 || a.call_status !== 'rejected' || a.execution_status !== 'rejected') wrong.push(`${a.id}: rejected, call ${a.call_status}, ${writes.length} writes`);
    } else wrong.push(`${a.id}: ${a.status}, call ${a.call_status} ${a.error_code}`);
  }
  t.same(wrong, [], `each of ${approvals.length} approvals wrote at most once: ${JSON.stringify(tally)}`);

  const status = db.prepare('SELECT status FROM approvals WHERE id = ?').pluck();
  const undecided = ledger.decisions.filter((d) => d.answered === undefined || status.get(d.approvalId) !== d.decision);
  t.same(undecided.map((d) => d.approvalId), [], `each of ${ledger.decisions.length} decisions sent is recorded as sent (${ledger.decisions.filter((d) => d.attempts > 1).length} re-sent after a kill)`);

  const call = db.prepare('SELECT tc.status, tc.error_code FROM approvals ap JOIN tool_calls tc ON tc.id = ap.tool_call_id WHERE ap.id = ?');
  const failedResume = resumed.filter((r) => {
    const c = call.get(r.approvalId) as { status: string; error_code: string | null };
    return !(c.status === 'succeeded' || c.error_code === 'CALLER_CREDENTIAL_EXPIRED');
  });
  t.same(failedResume.map((r) => r.approvalId), [], `the ${resumed.length} turns approved after the last restart ran their write (or found the grant expired)`);
}

/** No provisioning claim is left in progress, no accept unwritten; each answered provisioning exists once. */
export function checkClaims(t: Tap, db: SqliteDatabase, ledger: Ledger, refs: Record<string, string>): void {
  // A fire claim lives on its run (only completed claims are ever stored); the accepts' session starts were all written.
  const strays = count(db, 'SELECT COUNT(*) FROM trigger_runs WHERE claim_key IS NOT NULL AND claim_key IS NOT idempotency_key');
  t.equal(strays, 0, 'every fire claim sits on the run of its key');
  t.equal(count(db, 'SELECT COUNT(*) FROM trigger_runs WHERE pending IS NOT NULL'), 0, "no fire's sessions left unwritten");
  t.equal(count(db, 'SELECT COUNT(*) FROM sessions WHERE pending IS NOT NULL'), 0, "no opened session's first turn left unwritten");

  const states = Object.fromEntries(db.prepare('SELECT state, COUNT(*) FROM provisioning_claims GROUP BY state').raw().all() as Array<[string, number]>);
  t.equal(states.in_progress ?? 0, 0, `no provisioning claim in progress (${JSON.stringify(states)})`);
  const claimOf = db.prepare('SELECT state, org_id FROM provisioning_claims WHERE key = ?');
  const orgs = db.prepare('SELECT COUNT(*) FROM organizations WHERE id = ?').pluck();
  const wrong: string[] = [];
  for (const p of ledger.provisions) {
    const claim = claimOf.get(p.key) as { state: string; org_id: string | null } | undefined;
    if (p.answer === undefined) wrong.push(`${p.key}: never answered`);
    else if (p.answer === 'unknown') {
      if (claim?.state !== 'indeterminate') wrong.push(`${p.key}: told outcome unknown, claim ${claim?.state}`);
    } else if (claim?.state !== 'completed' || claim.org_id !== p.answer.orgId || orgs.get(p.answer.orgId) !== 1) {
      wrong.push(`${p.key}: answered ${p.answer.orgId}, claim ${JSON.stringify(claim)}`);
    }
  }
  t.same(wrong, [], `each of ${ledger.provisions.length} provisioning keys settled as answered`);
  const partnerOrgs = count(db, 'SELECT COUNT(*) FROM organizations WHERE partner_id = ?', refs.northwind);
  const claimedOrgs = count(db, 'SELECT COUNT(DISTINCT org_id) FROM provisioning_claims WHERE org_id IS NOT NULL');
  t.equal(partnerOrgs, claimedOrgs, `every provisioned organization (${partnerOrgs}) belongs to exactly one claim`);
  const stuck = db.prepare("SELECT id, status FROM onboarding_runs WHERE status IN ('pending', 'running')").all();
  t.same(stuck, [], 'no onboarding run is left running by a dead owner');
}

/**
 * Timers due while no process ran fired once at the next boot. The ticker: boot k (k >= 1) starts 6 minutes past
 * the slot armed before it and runs for seconds, so it fires exactly once if it got as far as ready (boot recovery
 * fires overdue timers before the service listens), at most once if it was killed while booting (then the next
 * boot owes it), and never twice.
 */
export function checkTimers(
  t: Tap,
  db: SqliteDatabase,
  refs: Record<string, string>,
  plan: { boots: number; bootStart: (k: number) => number; finalStart: number; wasReady: (k: number) => boolean },
): void {
  const ticks = db.prepare("SELECT created_at FROM trigger_runs WHERE trigger_id = ? AND source = 'schedule' ORDER BY created_at").pluck().all(refs.ticker) as number[];
  const perBoot = new Map<number | string, number>();
  for (const at of ticks) {
    const k = Array.from({ length: plan.boots }, (_, i) => i).find((i) => at >= plan.bootStart(i) && at < plan.bootStart(i) + 4 * 60_000);
    const slot = k ?? `stray at ${new Date(at).toISOString()}`;
    perBoot.set(slot, (perBoot.get(slot) ?? 0) + 1);
  }
  const wrong: string[] = [];
  for (const [slot, n] of perBoot) if (typeof slot === 'string' || slot === 0 || n > 1) wrong.push(`${slot}: ${n}`);
  for (let k = 1; k < plan.boots; k++) if (plan.wasReady(k) && perBoot.get(k) !== 1) wrong.push(`boot ${k} was ready with ${perBoot.get(k) ?? 0} firings`);
  t.same(wrong, [], `the ticker fired once per down period, never twice (${ticks.length} firings over ${plan.boots} boots)`);
  const overdue = db.prepare('SELECT kind, COUNT(*) FROM timers WHERE fired_at IS NULL AND due_at <= ? GROUP BY kind').raw().all(plan.finalStart);
  t.same(overdue, [], 'no timer that fell due before the last boot is still pending');
  t.equal(count(db, 'SELECT COUNT(*) FROM caller_grants WHERE expires_at IS NOT NULL AND expires_at <= ?', plan.finalStart), 0, 'no caller grant outlives its expiry');
  const fired = Object.fromEntries(db.prepare('SELECT kind, COUNT(*) FROM timers WHERE fired_at IS NOT NULL GROUP BY kind').raw().all() as Array<[string, number]>);
  t.comment(`timers fired: ${JSON.stringify(fired)}`);
}
