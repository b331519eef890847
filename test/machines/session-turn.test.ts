// Behaviour of the session turn machine with a simulated clock: queueing, approvals, grant expiry, settling, persistence (spec "States and transitions").
import t from 'tap';
import { createActor, type SnapshotFrom } from 'xstate';
import {
  APPROVAL_EXPIRED,
  CALLER_CREDENTIAL_EXPIRED,
  CANCELLED,
  decisionRefusal,
  sessionTurnMachine,
  type DecisionEvent,
  type SessionTurnEmitted,
  type SessionTurnEvent,
} from '../../machines/session-turn.machine.js';

type Snapshot = SnapshotFrom<typeof sessionTurnMachine>;

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 1);
const input = { executionId: 'exec-1', sessionId: 'sess-1' };

function start(snapshot?: Snapshot) {
  const actor = createActor(sessionTurnMachine, snapshot ? { snapshot, input } : { input });
  const emitted: SessionTurnEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

/** A turn parked on approval appr-1 at T0 + 2, its caller grant expiring at grantExpiresAt. */
function suspended(grantExpiresAt: number | null = null) {
  const turn = start();
  turn.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  turn.actor.send({ type: 'START', now: T0 + 1 });
  turn.actor.send({ type: 'SUSPEND', now: T0 + 2, approvalId: 'appr-1', toolName: 'crm.update', args: { id: 7 }, grantExpiresAt });
  return turn;
}

t.test('open and message queue the turn with its entry point, after validity and permission', async (t) => {
  const open = start();
  open.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  t.equal(open.actor.getSnapshot().value, 'queued');
  t.match(open.actor.getSnapshot().context, { entry: 'open', queuedAt: T0 });
  t.same(open.emitted, [{ type: 'turn.queued', executionId: 'exec-1', entry: 'open' }]);

  const message = start();
  message.actor.send({ type: 'MESSAGE', now: T0, valid: true, permitted: true });
  t.equal(message.actor.getSnapshot().context.entry, 'message');

  for (const [valid, permitted] of [[false, true], [true, false]] as const) {
    const refused = start();
    t.notOk(refused.actor.getSnapshot().can({ type: 'OPEN', now: T0, valid, permitted }), `valid=${valid} permitted=${permitted} is not taken`);
    refused.actor.send({ type: 'MESSAGE', now: T0, valid, permitted });
    t.equal(refused.actor.getSnapshot().value, 'idle');
    t.same(refused.emitted, []);
  }
});

t.test('a write tool needing approval suspends the turn and announces turn.suspended with approvalId and tool', async (t) => {
  const { actor, emitted } = suspended(T0 + HOUR);
  t.equal(actor.getSnapshot().value, 'suspended');
  t.same(actor.getSnapshot().context.pendingApproval, {
    approvalId: 'appr-1', toolName: 'crm.update', args: { id: 7 }, grantExpiresAt: T0 + HOUR, suspendedAt: T0 + 2,
  });
  t.same(emitted.map((e) => e.type), ['turn.queued', 'turn.started', 'turn.suspended']);
  t.match(emitted[2], { approvalId: 'appr-1', toolName: 'crm.update' });
});

t.test('approval with a matching or absent approvalId queues the resume with editedArgs', async (t) => {
  for (const approvalId of ['appr-1', undefined]) {
    const { actor, emitted } = suspended();
    const approve: SessionTurnEvent = { type: 'APPROVE', now: T0 + 10, approvalId, editedArgs: { id: 8 }, replacementCredentials: false, comment: 'ok' };
    t.equal(decisionRefusal(actor.getSnapshot(), approve), null);
    actor.send(approve);
    t.equal(actor.getSnapshot().value, 'resumeQueued');
    t.same(actor.getSnapshot().context.lastDecision, {
      approvalId: 'appr-1', decision: 'approved', editedArgs: { id: 8 }, replacementCredentials: false,
      gatedCallError: null, comment: 'ok', decidedAt: T0 + 10,
    });
    t.equal(actor.getSnapshot().context.pendingApproval, null);
    t.match(emitted.at(-1), { type: 'turn.resumeQueued', decision: { approvalId: 'appr-1', gatedCallError: null } });
  }
});

t.test('a stale approvalId is refused (409) without a transition, for approve and reject alike', async (t) => {
  const { actor, emitted } = suspended();
  const stale: DecisionEvent[] = [
    { type: 'APPROVE', now: T0 + 10, approvalId: 'appr-0', replacementCredentials: false },
    { type: 'REJECT', now: T0 + 10, approvalId: 'appr-0' },
  ];
  for (const event of stale) {
    t.equal(decisionRefusal(actor.getSnapshot(), event), 'stale-approval-id');
    actor.send(event);
    t.equal(actor.getSnapshot().value, 'suspended');
  }
  t.equal(emitted.length, 3, 'nothing announced');
  const running = start();
  running.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  t.equal(decisionRefusal(running.actor.getSnapshot(), stale[0]), 'not-suspended');
});

t.test('rejection settles the turn as rejected and asks the runtime to drop the grant', async (t) => {
  const { actor, emitted } = suspended();
  actor.send({ type: 'REJECT', now: T0 + 10, approvalId: 'appr-1', comment: 'no' });
  const s = actor.getSnapshot();
  t.equal(s.value, 'rejected');
  t.equal(s.status, 'done');
  t.match(s.context.lastDecision, { decision: 'rejected', editedArgs: null, comment: 'no', decidedAt: T0 + 10 });
  t.same(emitted.at(-1), { type: 'turn.settled', executionId: 'exec-1', outcome: 'rejected', code: null });
});

t.test('caller grant expiry: the gated call resumes as CALLER_CREDENTIAL_EXPIRED unless credentials replace the grant', async (t) => {
  const expiresAt = T0 + HOUR;
  const approveAt = (now: number, replacementCredentials: boolean) => {
    const { actor } = suspended(expiresAt);
    actor.send({ type: 'APPROVE', now, approvalId: 'appr-1', replacementCredentials });
    return actor.getSnapshot();
  };
  const before = approveAt(expiresAt - 1, false);
  t.equal(before.value, 'resumeQueued');
  t.equal(before.context.lastDecision?.gatedCallError, null, 'one millisecond before expiry the grant still holds');

  const atExpiry = approveAt(expiresAt, false);
  t.equal(atExpiry.value, 'resumeQueued');
  t.equal(atExpiry.context.lastDecision?.gatedCallError, CALLER_CREDENTIAL_EXPIRED, 'at the expiry instant the grant is gone');

  const replaced = approveAt(expiresAt + HOUR, true);
  t.match(replaced.context.lastDecision, { gatedCallError: null, replacementCredentials: true }, 'supplied credentials replace the expired grant');

  const { actor } = suspended(expiresAt);
  const staleAfterExpiry: DecisionEvent = { type: 'APPROVE', now: expiresAt + 1, approvalId: 'appr-0', replacementCredentials: false };
  t.equal(decisionRefusal(actor.getSnapshot(), staleAfterExpiry), 'stale-approval-id', 'expiry does not excuse a stale id');

  const noGrant = suspended(null);
  noGrant.actor.send({ type: 'APPROVE', now: T0 + 100 * HOUR, replacementCredentials: false });
  t.equal(noGrant.actor.getSnapshot().context.lastDecision?.gatedCallError, null, 'no declared expiry never expires');
});

t.test('a resumed turn runs again, may suspend again, and completes', async (t) => {
  const { actor, emitted } = suspended();
  actor.send({ type: 'START', now: T0 + 5 });
  t.notOk(actor.getSnapshot().can({ type: 'START', now: T0 + 5 }), 'START only from a queued state');
  actor.send({ type: 'APPROVE', now: T0 + 10, replacementCredentials: false });
  actor.send({ type: 'START', now: T0 + 11 });
  t.equal(actor.getSnapshot().value, 'running');
  t.equal(actor.getSnapshot().context.startedAt, T0 + 11);
  actor.send({ type: 'SUSPEND', now: T0 + 12, approvalId: 'appr-2', toolName: 'crm.delete', args: {} });
  t.equal(decisionRefusal(actor.getSnapshot(), { type: 'APPROVE', now: T0 + 13, approvalId: 'appr-1', replacementCredentials: false }), 'stale-approval-id', 'the first approval id is stale now');
  actor.send({ type: 'APPROVE', now: T0 + 13, approvalId: 'appr-2', replacementCredentials: false });
  actor.send({ type: 'START', now: T0 + 14 });
  actor.send({ type: 'COMPLETE', now: T0 + 20 });
  const s = actor.getSnapshot();
  t.equal(s.value, 'completed');
  t.equal(s.status, 'done');
  t.equal(s.context.settledAt, T0 + 20);
  t.same(emitted.at(-1), { type: 'turn.settled', executionId: 'exec-1', outcome: 'completed', code: null });
});

t.test('a failure (e.g. budget) settles the turn as failed with its code', async (t) => {
  const turn = start();
  turn.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  t.notOk(turn.actor.getSnapshot().can({ type: 'FAIL', now: T0, code: 'BUDGET_EXCEEDED' }), 'only a running turn fails');
  turn.actor.send({ type: 'START', now: T0 + 1 });
  turn.actor.send({ type: 'FAIL', now: T0 + 2, code: 'BUDGET_EXCEEDED', message: 'step budget of 20 reached' });
  t.equal(turn.actor.getSnapshot().value, 'failed');
  t.same(turn.actor.getSnapshot().context.failure, { code: 'BUDGET_EXCEEDED', message: 'step budget of 20 reached' });
  t.same(turn.emitted.at(-1), { type: 'turn.settled', executionId: 'exec-1', outcome: 'failed', code: 'BUDGET_EXCEEDED' });
});

t.test('cancel settles a queued, running, suspended or resume-queued turn as cancelled; a settled turn ignores it', async (t) => {
  const queued = start();
  queued.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  const running = start();
  running.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  running.actor.send({ type: 'START', now: T0 + 1 });
  const resumeQueued = suspended();
  resumeQueued.actor.send({ type: 'APPROVE', now: T0 + 3, replacementCredentials: false });
  for (const [name, turn] of [['queued', queued], ['running', running], ['suspended', suspended()], ['resumeQueued', resumeQueued]] as const) {
    turn.actor.send({ type: 'CANCEL', now: T0 + 9 });
    const snapshot = turn.actor.getSnapshot();
    t.equal(snapshot.value, 'cancelled', name);
    t.equal(snapshot.status, 'done', `${name}: final`);
    t.match(snapshot.context, { pendingApproval: null, settledAt: T0 + 9, failure: { code: CANCELLED } });
    t.match(turn.emitted.at(-1), { type: 'turn.settled', outcome: 'cancelled', code: CANCELLED });
  }
  const done = start();
  done.actor.send({ type: 'OPEN', now: T0, valid: true, permitted: true });
  done.actor.send({ type: 'START', now: T0 + 1 });
  done.actor.send({ type: 'COMPLETE', now: T0 + 2 });
  t.notOk(done.actor.getSnapshot().can({ type: 'CANCEL', now: T0 + 3 }), 'a completed turn cannot be cancelled');
});

t.test('approval expiry fails the suspended turn APPROVAL_EXPIRED, only for the approval its timer was set for', async (t) => {
  const stale = suspended();
  stale.actor.send({ type: 'EXPIRE_APPROVAL', now: T0 + 24 * HOUR, approvalId: 'appr-0' });
  t.equal(stale.actor.getSnapshot().value, 'suspended', 'a timer of an earlier approval does nothing');
  const turn = suspended();
  turn.actor.send({ type: 'EXPIRE_APPROVAL', now: T0 + 24 * HOUR, approvalId: 'appr-1' });
  t.equal(turn.actor.getSnapshot().value, 'failed');
  t.match(turn.emitted.at(-1), { type: 'turn.settled', outcome: 'failed', code: APPROVAL_EXPIRED });
  t.equal(decisionRefusal(turn.actor.getSnapshot(), { type: 'APPROVE', now: T0 + 25 * HOUR, replacementCredentials: false }), 'not-suspended', 'the approvalId then gets 409');
});

t.test('a suspended turn persisted through JSON keeps its approval, expiry and stale-id refusal', async (t) => {
  const { actor } = suspended(T0 + HOUR);
  const stored = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
  actor.stop();
  const restored = start(stored);
  const snap = restored.actor.getSnapshot();
  t.equal(snap.value, 'suspended');
  t.equal(decisionRefusal(snap, { type: 'REJECT', now: T0 + 3, approvalId: 'appr-0' }), 'stale-approval-id');
  restored.actor.send({ type: 'APPROVE', now: T0 + 2 * HOUR, approvalId: 'appr-1', replacementCredentials: false });
  t.equal(restored.actor.getSnapshot().value, 'resumeQueued');
  t.equal(restored.actor.getSnapshot().context.lastDecision?.gatedCallError, CALLER_CREDENTIAL_EXPIRED);
  t.match(restored.emitted, [{ type: 'turn.resumeQueued', executionId: 'exec-1' }]);

  const settled = JSON.parse(JSON.stringify(restored.actor.getPersistedSnapshot())) as Snapshot;
  const again = start(settled);
  t.equal(again.actor.getSnapshot().value, 'resumeQueued');
  again.actor.send({ type: 'START', now: T0 + 3 * HOUR });
  t.equal(again.actor.getSnapshot().value, 'running');
});
