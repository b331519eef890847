// Fire service rules (SPEC Trigger firing 1-5, 7) against a real store and the contract SessionStarter seam.
import t, { type Test } from 'tap';
import { AppError } from '../../../runtime/errors.js';
import { CLAIM_SWEEP_TIMER } from '../../../runtime/triggers/claim-sweeper.js';
import type { FireBody } from '../../../runtime/triggers/fire-request.js';
import { testStorage } from '../../helpers/test-database.js';
import { fireFixture } from './fire.fixture.js';

const body = (triggerId: string, extra: Partial<FireBody> = {}): FireBody => ({ triggerId, input: {}, ...extra });
const crm = (token: string) => ({ integrations: { crm: { token, fallbackAllowed: true } } });

async function rejects(t: Test, promise: Promise<unknown>, code: string, status: number): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  t.ok(error instanceof AppError, `rejects with an AppError (${code})`);
  t.match(error, { code, status });
}

t.test('rules 2-5: one session per started subscriber; skipped and failed subscribers recorded; credentials narrowed', async (t) => {
  const f = await fireFixture(t);
  const credentials = { integrations: { crm: { token: 'caller-tok', fallbackAllowed: true }, zendesk: { token: 'zd-tok', fallbackAllowed: true } } };
  const answer = await f.fire.fire(f.principal('bob'), body(f.refs.fan!, { input: { id: 'c-1' }, callerCredentials: credentials }), null, 'req-1');
  t.equal(answer.replayed, false);
  t.same(
    answer.body.sessions.map((s) => s.automationId),
    [f.refs.lookup, f.refs.upgrader, f.refs.enrich],
    'lookup, upgrader and enrich start in subscription order',
  );
  const byTarget = new Map(f.planned.map((p) => [p.automationId, p]));
  const lookup = byTarget.get(f.refs.lookup!)!;
  t.equal(lookup.message, 'The trigger "Fan out" fired with this input:\n- id: c-1', 'an agent without input.prompt gets the payload as text');
  t.same(lookup.callerCredentials, { integrations: { crm: { token: 'caller-tok', fallbackAllowed: true } } }, 'only the caller-bound crm entry');
  t.equal(lookup.origin, 'trigger');
  t.equal(lookup.triggerRunId, answer.body.runId);
  const enrich = byTarget.get(f.refs.enrich!)!;
  t.same(enrich.input, { id: 'c-1' }, 'a flow gets input verbatim');
  t.equal(enrich.callerCredentials, undefined, 'a service-bound flow gets no caller material');
  t.same(f.dispatched, [], 'nothing dispatched before the route hands the answer out');
  answer.dispatch();
  t.same(f.dispatched, answer.body.sessions.map((s) => s.sessionId));

  const run = await f.triggerRuns.get(f.principal('bob'), f.refs.fan!, answer.body.runId);
  t.equal(run.outcome, 'partial', 'started + skipped disagree');
  t.same(run.unusedCredentialIntegrationIds, ['zendesk'], 'supplied but unused ids, never material');
  t.same(
    run.subscribers.map((s) => [s.name, s.status, s.code]),
    [
      ['Contact lookup', 'started', null],
      ['Tier upgrader', 'started', null],
      ['Enrich contact', 'started', null],
      ['Never published', 'skipped', 'NOT_PUBLISHED'],
      ['Not entitled', 'skipped', 'ENTITLEMENT_DISABLED'],
    ],
  );
  t.equal((await f.store.repos.sessions.session(answer.body.sessions[0]!.sessionId))?.triggerRunId, answer.body.runId, 'sessions committed with the run');
});

t.test('rule 4: without caller material the caller-required subscriber fails with CALLER_CREDENTIALS_REQUIRED, others start', async (t) => {
  const f = await fireFixture(t);
  const answer = await f.fire.fire(f.principal('bob'), body(f.refs.fan!, { input: { prompt: '  Look up c-9  ' } }), null, 'r');
  t.same(answer.body.sessions.map((s) => s.automationId), [f.refs.lookup, f.refs.enrich]);
  t.equal(f.planned[0]!.message, 'Look up c-9', 'input.prompt, trimmed, is the agent message');
  t.equal(f.planned[0]!.callerCredentials, undefined, 'caller_preferred without material runs as the organization');
  const run = await f.triggerRuns.get(f.principal('bob'), f.refs.fan!, answer.body.runId);
  const upgrader = run.subscribers.find((s) => s.automationId === f.refs.upgrader)!;
  t.match(upgrader, { status: 'failed', code: 'CALLER_CREDENTIALS_REQUIRED', sessionId: null });
  t.match(upgrader.reason, /crm/);
  t.same(run.unusedCredentialIntegrationIds, []);

  const guarded = await f.fire.fire(f.principal('bob'), body(f.refs.fan!, { callerCredentials: { integrations: { crm: { fallbackAllowed: false } } } }), null, 'r2');
  t.same(guarded.body.sessions.map((s) => s.automationId), [f.refs.enrich], 'fallbackAllowed:false alone refuses every crm caller binding');
});

t.test('rule 3: no subscribers gives sessions [] and a skipped firing', async (t) => {
  const f = await fireFixture(t);
  const empty = await f.fire.fire(f.principal('ada'), body(f.refs.empty!), null, 'r');
  t.same(empty.body.sessions, []);
  t.equal((await f.triggerRuns.get(f.principal('ada'), f.refs.empty!, empty.body.runId)).outcome, 'skipped');
});

t.test('rule 3: a starter refusal fails that subscriber with its code while the others start; all failing gives sessions []', async (t) => {
  const refuse = new Map<string, AppError>();
  const f = await fireFixture(t, { refuse });
  refuse.set(f.refs.enrich!, new AppError('VALIDATION', 'input does not match the flow inputs'));
  const only = await f.fire.fire(f.principal('bob'), body(f.refs['flow-only']!, { input: {} }), null, 'r');
  t.same(only.body.sessions, []);
  const run = await f.triggerRuns.get(f.principal('bob'), f.refs['flow-only']!, only.body.runId);
  t.equal(run.outcome, 'failed');
  t.match(run.subscribers[0], { status: 'failed', code: 'VALIDATION', reason: 'input does not match the flow inputs' });
  const fan = await f.fire.fire(f.principal('bob'), body(f.refs.fan!, { callerCredentials: crm('x') }), null, 'r2');
  t.same(fan.body.sessions.map((s) => s.automationId), [f.refs.lookup, f.refs.upgrader]);
});

t.test('a partner entitlement override enables an automation that is off by default', async (t) => {
  const f = await fireFixture(t);
  const orgId = f.principal('ada').orgId;
  await f.sql.run('INSERT INTO entitlement_overrides (org_id, automation_id, enabled, updated_at) VALUES (?, ?, true, 0)', orgId, f.refs.gated);
  await f.sql.run('INSERT INTO entitlement_overrides (org_id, automation_id, enabled, updated_at) VALUES (?, ?, false, 0)', orgId, f.refs.lookup);
  const answer = await f.fire.fire(f.principal('ada'), body(f.refs.fan!, { callerCredentials: crm('x') }), null, 'r');
  t.same(answer.body.sessions.map((s) => s.automationId), [f.refs.upgrader, f.refs.enrich, f.refs.gated]);
});

t.test('rule 1: uniform 404 outside the organization, 403 without execute permission, 404 for paused and non-API triggers', async (t) => {
  const f = await fireFixture(t);
  await rejects(t, f.fire.fire(f.principal('gina'), body(f.refs.fan!), null, 'r'), 'NOT_FOUND', 404);
  await rejects(t, f.fire.fire(f.principal('bob'), body('01a20378-0000-7000-8000-000000000000'), null, 'r'), 'NOT_FOUND', 404);
  await rejects(t, f.fire.fire(f.principal('eve'), body(f.refs.fan!), null, 'r'), 'FORBIDDEN', 403);
  await rejects(t, f.fire.fire(f.principal('vic'), body(f.refs.fan!), null, 'r'), 'FORBIDDEN', 403);
  await rejects(t, f.fire.fire(f.principal('bob'), body(f.refs.paused!), null, 'r'), 'NOT_FOUND', 404);
  await rejects(t, f.fire.fire(f.principal('bob'), body(f.refs.nightly!), null, 'r'), 'NOT_FOUND', 404);
  t.equal(await f.store.repos.triggerRuns.countOfTrigger(f.refs.fan!), 0, 'no refusal wrote a firing');
});

t.test('idempotency: replay, reuse with a different request, in progress, organization scope', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const first = await f.fire.fire(bob, body(f.refs.fan!, { input: { a: 1, b: 2 }, callerCredentials: crm('tok-1') }), 'k-1', 'r1');
  const replay = await f.fire.fire(bob, body(f.refs.fan!, { input: { b: 2, a: 1 }, callerCredentials: crm('tok-1') }), 'k-1', 'r2');
  t.equal(replay.replayed, true, 'reordered keys are the same request');
  t.same(replay.body, first.body, 'original runId and sessionIds');
  replay.dispatch();
  t.same(f.dispatched, [], 'a replay dispatches nothing');
  t.equal(await f.store.repos.triggerRuns.countOfTrigger(f.refs.fan!), 1, 'never another execution');
  const ada = await f.fire.fire(f.principal('ada'), body(f.refs.fan!, { input: { a: 1, b: 2 }, callerCredentials: crm('tok-1') }), 'k-1', 'r3');
  t.equal(ada.replayed, true, 'the key is scoped to the organization, not the person');

  await rejects(t, f.fire.fire(bob, body(f.refs.fan!, { input: { a: 1, b: 3 }, callerCredentials: crm('tok-1') }), 'k-1', 'r'), 'IDEMPOTENCY_KEY_REUSED', 409);
  await rejects(t, f.fire.fire(bob, body(f.refs.fan!, { input: { a: 1, b: 2 }, callerCredentials: crm('tok-2') }), 'k-1', 'r'), 'IDEMPOTENCY_KEY_REUSED', 409);
  await rejects(t, f.fire.fire(bob, body(f.refs['flow-only']!, { input: { a: 1, b: 2 }, callerCredentials: crm('tok-1') }), 'k-1', 'r'), 'IDEMPOTENCY_KEY_REUSED', 409);

  const gina = await f.fire.fire(f.principal('gina'), body(f.refs['globex-fire']!), 'k-1', 'r4');
  t.equal(gina.replayed, false, 'the same text in another organization is an independent claim');

  const claim = (await f.store.repos.fireClaims.get(bob.orgId, 'k-1'))!;
  t.equal(claim.state, 'completed');
  t.notOk(claim.fingerprint.includes(Buffer.from('tok-1')), 'the claim stores a keyed fingerprint, not the credential');

  // Two identical requests in the same tick: one fires; the other meets it in flight, or (PostgreSQL, where either may
  // commit first) reads its committed claim and replays it. Never a second firing.
  const pair = await Promise.allSettled([
    f.fire.fire(bob, body(f.refs.empty!), 'k-2', 'r5'),
    f.fire.fire(bob, body(f.refs.empty!), 'k-2', 'r6'),
  ]);
  const fired = pair.filter((r) => r.status === 'fulfilled' && !r.value.replayed);
  t.equal(fired.length, 1, 'exactly one of the two fired');
  const runId = (fired[0] as PromiseFulfilledResult<{ body: { runId: string } }>).value.body.runId;
  const other = pair.find((r) => r !== fired[0])!;
  const inProgress = { status: 'rejected', reason: { code: 'IDEMPOTENCY_IN_PROGRESS', retryAfterSeconds: 2 } };
  if (testStorage === 'sqlite') t.match(pair, [{ status: 'fulfilled' }, inProgress], 'SQLite: the second always meets the first in flight');
  else {
    const answer = other.status === 'fulfilled' ? { replayed: other.value.replayed, runId: other.value.body.runId } : { code: (other.reason as AppError).code };
    t.ok(answer.code === 'IDEMPOTENCY_IN_PROGRESS' || (answer.replayed === true && answer.runId === runId), `in progress, or a replay of the same firing: ${JSON.stringify(answer)}`);
  }
  // Whichever of the two takes the key first (on PostgreSQL either may), the other is a reuse, not in progress.
  const different = await Promise.allSettled([f.fire.fire(bob, body(f.refs.empty!), 'k-3', 'r7'), f.fire.fire(bob, body(f.refs.fan!), 'k-3', 'r8')]);
  t.equal(different.filter((r) => r.status === 'fulfilled').length, 1, 'one of the two fired');
  t.match(
    different.find((r) => r.status === 'rejected'),
    { reason: { code: 'IDEMPOTENCY_KEY_REUSED' } },
    'a different request under a key in flight is reused, not in progress',
  );
  if (testStorage === 'sqlite') t.equal(different[1].status, 'rejected', 'SQLite: the second one');
});

t.test('idempotency: empty credentials equal omission; without a key every request fires again', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const first = await f.fire.fire(bob, body(f.refs.empty!), 'k', 'r1');
  const same = await f.fire.fire(bob, body(f.refs.empty!, { callerCredentials: { integrations: { crm: { fallbackAllowed: true } } } }), 'k', 'r2');
  t.equal(same.replayed, true);
  t.equal(same.body.runId, first.body.runId);
  const x = await f.fire.fire(bob, body(f.refs.empty!), null, 'r3');
  const y = await f.fire.fire(bob, body(f.refs.empty!), null, 'r4');
  t.not(x.body.runId, y.body.runId);
  t.equal(await f.store.repos.triggerRuns.countOfTrigger(f.refs.empty!), 3);
});

t.test('idempotency: after 24 hours the key is reusable at once, and the claim sweep (one timer for all claims) deletes the claim', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const first = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'day', 'r1');
  f.clock.advance(24 * 3_600_000 - 1);
  await rejects(t, f.fire.fire(bob, body(f.refs.empty!, { input: { v: 2 } }), 'day', 'r'), 'IDEMPOTENCY_KEY_REUSED', 409);
  t.equal((await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'day', 'r2')).replayed, true, 'still replays 1 ms before the window ends');
  f.clock.advance(1);
  await f.scheduler.drain();
  t.equal(await f.store.repos.fireClaims.get(bob.orgId, 'day'), undefined, 'the sweep deleted the claim');
  t.equal(await f.scheduler.pendingDueAt(CLAIM_SWEEP_TIMER, 'idempotency_claims'), null, 'nothing left to sweep: no timer');
  const again = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 2 } }), 'day', 'r3');
  t.equal(again.replayed, false, 'a different request under the expired key runs');
  t.not(again.body.runId, first.body.runId);
  t.equal(await f.scheduler.pendingDueAt(CLAIM_SWEEP_TIMER, 'idempotency_claims'), f.clock.now() + 24 * 3_600_000, 'the first claim after the sweep arms it again');
});

t.test('idempotency: a keyed fire reads its claim once (the verdict) and the sweep timer once per arming', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const reads = { claim: 0, timer: 0 };
  const { fireClaims } = f.store.repos;
  const get = fireClaims.get.bind(fireClaims);
  fireClaims.get = (scope, key) => (reads.claim++, get(scope, key));
  const pendingDueAt = f.scheduler.pendingDueAt.bind(f.scheduler);
  f.scheduler.pendingDueAt = (kind, target) => (reads.timer++, pendingDueAt(kind, target));
  for (let i = 0; i < 5; i++) await f.fire.fire(bob, body(f.refs.empty!, { input: { i } }), `once-${i}`, `r${i}`);
  t.same(reads, { claim: 5, timer: 1 }, 'one claim read per fire, outside the unit; the timer is looked at until a commit shows it armed');
  t.equal(await fireClaims.count(), 5);
});

t.test('idempotency: replays of a completed claim are answered from memory; anything else reads the stored claim', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const { fireClaims } = f.store.repos;
  let reads = 0;
  const get = fireClaims.get.bind(fireClaims);
  fireClaims.get = (scope, key) => (reads++, get(scope, key));
  const first = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'mem', 'r1');
  for (let i = 0; i < 5; i++) {
    const replay = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'mem', `r-${i}`);
    t.match(replay, { replayed: true, body: first.body });
  }
  t.equal(reads, 2, 'the first fire and the first replay read the claim; later replays do not');
  await rejects(t, f.fire.fire(bob, body(f.refs.empty!, { input: { v: 2 } }), 'mem', 'r2'), 'IDEMPOTENCY_KEY_REUSED', 409);
  t.equal(reads, 3, 'a different request under the key reads the stored claim');
  t.equal((await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'mem', 'r3')).replayed, true, 'and the original still replays');

  // The trigger's deletion removes its runs and their claims: the key is free again, for a request to another trigger.
  await f.store.writer.submit(async (tx) => {
    await tx.repos.triggers.deleteTrigger(f.refs.empty!);
  });
  const other = await f.fire.fire(bob, body(f.refs.fan!, { input: { v: 1 } }), 'mem', 'r4');
  t.equal(other.replayed, false, 'a request to another trigger under the freed key fires (not KEY_REUSED from memory)');

  f.clock.advance(24 * 3_600_000);
  const later = await f.fire.fire(bob, body(f.refs.fan!, { input: { v: 1 } }), 'mem', 'r5');
  t.equal(later.replayed, false, 'once the window elapsed, the remembered replay is not served: the request fires again');
  t.not(later.body.runId, other.body.runId);
});

t.test('idempotency: a claim committed behind a stale verdict meets the unique index and is answered from', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const first = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'stale', 'r1');
  const { fireClaims } = f.store.repos;
  const get = fireClaims.get.bind(fireClaims);
  // The verdict sees no claim (as if it was read before the original committed); the unit then meets the index.
  let blind = 1;
  fireClaims.get = (scope, key) => (blind-- > 0 ? undefined : get(scope, key));
  const same = await f.fire.fire(bob, body(f.refs.empty!, { input: { v: 1 } }), 'stale', 'r2');
  t.equal(same.replayed, true, 'the identical request replays the committed firing');
  t.equal(same.body.runId, first.body.runId);
  blind = 1;
  await rejects(t, f.fire.fire(bob, body(f.refs.empty!, { input: { v: 2 } }), 'stale', 'r3'), 'IDEMPOTENCY_KEY_REUSED', 409);
  t.ok(blind < 0, 'the conflicting request read the claim again, after the index refused its run');
  t.equal(await f.store.repos.triggerRuns.countOfTrigger(f.refs.empty!), 1, 'no second run was written');
});

t.test('idempotency: an expired claim not yet swept is taken over at request time', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  f.scheduler.close();
  await f.fire.fire(bob, body(f.refs.empty!), 'lazy', 'r1');
  f.clock.advance(24 * 3_600_000);
  const again = await f.fire.fire(bob, body(f.refs.empty!), 'lazy', 'r2');
  t.equal(again.replayed, false, 'the identical request fires again once the window passed');
  t.equal(await f.store.repos.triggerRuns.countOfTrigger(f.refs.empty!), 2);
  t.equal((await f.store.repos.fireClaims.get(bob.orgId, 'lazy'))?.runId, again.body.runId, 'the claim now points at the new firing');
});

t.test('Run history: newest first with a cursor; visible to domain members; 403 in-org, 404 across organizations', async (t) => {
  const f = await fireFixture(t);
  const bob = f.principal('bob');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push((await f.fire.fire(bob, body(f.refs.empty!, { input: { i } }), null, `r${i}`)).body.runId);
    if (i % 2 === 0) f.clock.advance(1_000);
  }
  const first = await f.triggerRuns.list(f.principal('vic'), f.refs.empty!, { limit: 2 });
  t.same(first.runs.map((r) => r.runId), [ids[4], ids[3]], 'a viewer reads Run history; newest first');
  const second = await f.triggerRuns.list(bob, f.refs.empty!, { limit: 2, cursor: first.nextCursor });
  t.same(second.runs.map((r) => r.runId), [ids[2], ids[1]]);
  const third = await f.triggerRuns.list(bob, f.refs.empty!, { limit: 2, cursor: second.nextCursor });
  t.same(third.runs.map((r) => r.runId), [ids[0]]);
  t.equal(third.nextCursor, null);
  await t.rejects(f.triggerRuns.list(bob, f.refs.empty!, { cursor: 'bm9wZQ' }), { code: 'VALIDATION' });
  await t.rejects(f.triggerRuns.list(f.principal('eve'), f.refs.empty!, {}), { code: 'FORBIDDEN' });
  await t.rejects(f.triggerRuns.list(f.principal('gina'), f.refs.empty!, {}), { code: 'NOT_FOUND' });
  await t.rejects(f.triggerRuns.get(bob, f.refs.fan!, ids[0]!), { code: 'NOT_FOUND' }, 'a run of another trigger is not found under this one');
  t.match(await f.triggerRuns.get(bob, f.refs.empty!, ids[0]!), { runId: ids[0], source: 'api', firedBy: bob.userId, outcome: 'skipped', subscribers: [] });
});

t.test('fanOut: schedule and event firings carry no caller, so caller-required subscribers are refused (rule 7)', async (t) => {
  const f = await fireFixture(t);
  const trigger = (await f.store.repos.triggers.trigger(f.refs.fan!))!;
  const result = await f.fire.fanOut({ trigger, source: 'schedule', firedBy: null, input: { id: 'c-1' }, credentials: null, credentialExpiresAt: null });
  t.same(result.sessions.map((s) => s.automationId), [f.refs.lookup, f.refs.enrich]);
  const run = await f.triggerRuns.get(f.principal('bob'), f.refs.fan!, result.runId);
  t.match(run, { source: 'schedule', firedBy: null, outcome: 'partial' });
  t.equal(run.subscribers.find((s) => s.automationId === f.refs.upgrader)?.code, 'CALLER_CREDENTIALS_REQUIRED');
  t.equal(f.planned[0]!.origin, 'schedule');
});
