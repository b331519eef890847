// One session turn (actor id = executionId): queue, run, suspend for approval, resume or settle (spec "States and transitions").
import { assertEvent, assign, emit, setup, type SnapshotFrom } from 'xstate';
import type { SpecTableRow } from './spec-row.js';

/** Bump when a persisted snapshot of an older version can no longer be restored as is. */
export const MACHINE_VERSION = 1;

/** Tool-result code of a gated call approved after the caller grant expired (Caller credentials rule 10). */
export const CALLER_CREDENTIAL_EXPIRED = 'CALLER_CREDENTIAL_EXPIRED';

/** Failure code of a turn whose pending approval was not decided within the approval window (docs/errors.md). */
export const APPROVAL_EXPIRED = 'APPROVAL_EXPIRED';
/** Error code recorded on a cancelled execution (its row reads status `failed`; the stream says `cancelled`). */
export const CANCELLED = 'CANCELLED';

export type ToolArgs = Readonly<Record<string, unknown>>;

export interface SessionTurnInput {
  readonly executionId: string;
  readonly sessionId: string;
}

export interface PendingApproval {
  readonly approvalId: string;
  readonly toolName: string;
  readonly args: ToolArgs;
  /** Expiry of the execution's caller grant (epoch ms), null when it holds none or none was declared. */
  readonly grantExpiresAt: number | null;
  readonly suspendedAt: number;
}

export interface ApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'approved' | 'rejected';
  readonly editedArgs: ToolArgs | null;
  /** The request carried callerCredentials; the runtime stores them as the parked execution's new grant. */
  readonly replacementCredentials: boolean;
  /** Set when the gated call must resume as a failed tool result instead of running. */
  readonly gatedCallError: typeof CALLER_CREDENTIAL_EXPIRED | null;
  readonly comment: string | null;
  readonly decidedAt: number;
}

export interface SessionTurnContext {
  readonly executionId: string;
  readonly sessionId: string;
  /** Which entry point queued the turn: open answers 202, message answers 200. */
  readonly entry: 'open' | 'message' | null;
  readonly queuedAt: number | null;
  readonly startedAt: number | null;
  readonly pendingApproval: PendingApproval | null;
  /** The latest decision; the runtime reads it when the resumed turn starts. */
  readonly lastDecision: ApprovalDecision | null;
  readonly failure: { readonly code: string; readonly message: string | null } | null;
  readonly settledAt: number | null;
}

type Entry = { readonly now: number; readonly valid: boolean; readonly permitted: boolean };
type Decision = { readonly now: number; readonly approvalId?: string; readonly comment?: string };

export type SessionTurnEvent =
  | ({ readonly type: 'OPEN' } & Entry)
  | ({ readonly type: 'MESSAGE' } & Entry)
  | { readonly type: 'START'; readonly now: number }
  | {
      readonly type: 'SUSPEND';
      readonly now: number;
      readonly approvalId: string;
      readonly toolName: string;
      readonly args: ToolArgs;
      readonly grantExpiresAt?: number | null;
    }
  // Only a boolean about callerCredentials: secret material never enters a persisted snapshot.
  | ({ readonly type: 'APPROVE'; readonly editedArgs?: ToolArgs; readonly replacementCredentials: boolean } & Decision)
  // No editedArgs here: with a rejection they are a 400 VALIDATION, refused before the machine.
  | ({ readonly type: 'REJECT' } & Decision)
  | { readonly type: 'COMPLETE'; readonly now: number }
  | { readonly type: 'FAIL'; readonly now: number; readonly code: string; readonly message?: string }
  // The approval window's durable timer fired; approvalId names the approval it was set for.
  | { readonly type: 'EXPIRE_APPROVAL'; readonly now: number; readonly approvalId: string }
  | { readonly type: 'CANCEL'; readonly now: number };

export type TurnOutcome = 'completed' | 'failed' | 'rejected' | 'cancelled';

/** Effects for the runtime: answer and schedule, stream events, store a replacement grant, drop the grant on settle. */
export type SessionTurnEmitted =
  | { readonly type: 'turn.queued'; readonly executionId: string; readonly entry: 'open' | 'message' }
  | { readonly type: 'turn.started'; readonly executionId: string }
  | { readonly type: 'turn.suspended'; readonly executionId: string; readonly approvalId: string; readonly toolName: string }
  | { readonly type: 'turn.resumeQueued'; readonly executionId: string; readonly decision: ApprovalDecision }
  | { readonly type: 'turn.settled'; readonly executionId: string; readonly outcome: TurnOutcome; readonly code: string | null };

function approvalIdMatches(context: SessionTurnContext, event: SessionTurnEvent): boolean {
  if (event.type !== 'APPROVE' && event.type !== 'REJECT' && event.type !== 'EXPIRE_APPROVAL') return false;
  const pending = context.pendingApproval;
  return pending !== null && (event.approvalId === undefined || event.approvalId === pending.approvalId);
}

function grantExpired(context: SessionTurnContext, now: number): boolean {
  const expiresAt = context.pendingApproval?.grantExpiresAt ?? null;
  // The expiry instant itself is already past the grant (Caller credentials rule 10: "after its declared expiry").
  return expiresAt !== null && now >= expiresAt;
}

function decide(context: SessionTurnContext, event: SessionTurnEvent, gatedCallError: ApprovalDecision['gatedCallError']): ApprovalDecision {
  const approved = event.type === 'APPROVE';
  return {
    approvalId: context.pendingApproval?.approvalId ?? '',
    decision: approved ? 'approved' : 'rejected',
    editedArgs: approved ? event.editedArgs ?? null : null,
    replacementCredentials: approved ? event.replacementCredentials : false,
    gatedCallError,
    comment: event.type === 'APPROVE' || event.type === 'REJECT' ? event.comment ?? null : null,
    decidedAt: event.now,
  };
}

export const sessionTurnMachine = setup({
  types: {
    input: {} as SessionTurnInput,
    context: {} as SessionTurnContext,
    events: {} as SessionTurnEvent,
    emitted: {} as SessionTurnEmitted,
  },
  guards: {
    validAndPermitted: ({ event }) => (event.type === 'OPEN' || event.type === 'MESSAGE') && event.valid && event.permitted,
    approvalIdMatches: ({ context, event }) => approvalIdMatches(context, event),
    // Includes the approvalId check so a stale approval after expiry is still refused (409), not resumed.
    grantExpiredWithoutReplacement: ({ context, event }) =>
      event.type === 'APPROVE' && approvalIdMatches(context, event) && !event.replacementCredentials && grantExpired(context, event.now),
  },
  actions: {
    recordQueued: assign(({ event }) => ({ entry: event.type === 'OPEN' ? ('open' as const) : ('message' as const), queuedAt: event.now })),
    announceQueued: emit(({ context, event }) => ({
      type: 'turn.queued' as const,
      executionId: context.executionId,
      entry: event.type === 'OPEN' ? ('open' as const) : ('message' as const),
    })),
    recordStarted: assign(({ event }) => ({ startedAt: event.now })),
    announceStarted: emit(({ context }) => ({ type: 'turn.started' as const, executionId: context.executionId })),
    recordSuspension: assign(({ event }) => {
      assertEvent(event, 'SUSPEND');
      const { approvalId, toolName, args, now } = event;
      return { pendingApproval: { approvalId, toolName, args, grantExpiresAt: event.grantExpiresAt ?? null, suspendedAt: now } };
    }),
    announceSuspended: emit(({ context, event }) => {
      assertEvent(event, 'SUSPEND');
      return { type: 'turn.suspended' as const, executionId: context.executionId, approvalId: event.approvalId, toolName: event.toolName };
    }),
    recordDecision: assign(({ context, event }) => ({ lastDecision: decide(context, event, null), pendingApproval: null })),
    recordExpiredGrantApproval: assign(({ context, event }) => ({
      lastDecision: decide(context, event, CALLER_CREDENTIAL_EXPIRED),
      pendingApproval: null,
    })),
    announceResumeQueued: emit(({ context }) => ({
      type: 'turn.resumeQueued' as const,
      executionId: context.executionId,
      decision: context.lastDecision as ApprovalDecision,
    })),
    recordFailure: assign(({ event }) => (event.type === 'FAIL' ? { failure: { code: event.code, message: event.message ?? null } } : {})),
    recordApprovalExpiry: assign(() => ({
      pendingApproval: null,
      failure: { code: APPROVAL_EXPIRED, message: 'The approval was not decided in time.' },
    })),
    recordCancel: assign(() => ({ pendingApproval: null, failure: { code: CANCELLED, message: null } })),
    settle: assign(({ event }) => ({ settledAt: event.now })),
    announceSettled: emit(({ context }, params: { outcome: TurnOutcome }) => ({
      type: 'turn.settled' as const,
      executionId: context.executionId,
      outcome: params.outcome,
      code: context.failure?.code ?? null,
    })),
  },
}).createMachine({
  id: 'session-turn',
  initial: 'idle',
  context: ({ input }) => ({
    executionId: input.executionId,
    sessionId: input.sessionId,
    entry: null,
    queuedAt: null,
    startedAt: null,
    pendingApproval: null,
    lastDecision: null,
    failure: null,
    settledAt: null,
  }),
  states: {
    idle: {
      on: {
        OPEN: { guard: 'validAndPermitted', target: 'queued', actions: ['recordQueued', 'announceQueued'] },
        MESSAGE: { guard: 'validAndPermitted', target: 'queued', actions: ['recordQueued', 'announceQueued'] },
      },
    },
    queued: {
      on: {
        START: { target: 'running', actions: ['recordStarted', 'announceStarted'] },
        CANCEL: { target: 'cancelled', actions: 'recordCancel' },
      },
    },
    running: {
      on: {
        SUSPEND: { target: 'suspended', actions: ['recordSuspension', 'announceSuspended'] },
        COMPLETE: { target: 'completed' },
        FAIL: { target: 'failed', actions: 'recordFailure' },
        CANCEL: { target: 'cancelled', actions: 'recordCancel' },
      },
    },
    suspended: {
      description: 'Parked durably on a write-tool approval (pendingApproval holds the gated call).',
      on: {
        // Order matters: the expired-grant row is the narrower case of an approval whose id matches.
        APPROVE: [
          { guard: 'grantExpiredWithoutReplacement', target: 'resumeQueued', actions: ['recordExpiredGrantApproval', 'announceResumeQueued'] },
          { guard: 'approvalIdMatches', target: 'resumeQueued', actions: ['recordDecision', 'announceResumeQueued'] },
        ],
        REJECT: { guard: 'approvalIdMatches', target: 'rejected', actions: 'recordDecision' },
        EXPIRE_APPROVAL: { guard: 'approvalIdMatches', target: 'failed', actions: 'recordApprovalExpiry' },
        CANCEL: { target: 'cancelled', actions: 'recordCancel' },
      },
    },
    resumeQueued: {
      on: {
        START: { target: 'running', actions: ['recordStarted', 'announceStarted'] },
        CANCEL: { target: 'cancelled', actions: 'recordCancel' },
      },
    },
    completed: { type: 'final', entry: ['settle', { type: 'announceSettled', params: { outcome: 'completed' } }] },
    failed: { type: 'final', entry: ['settle', { type: 'announceSettled', params: { outcome: 'failed' } }] },
    rejected: { type: 'final', entry: ['settle', { type: 'announceSettled', params: { outcome: 'rejected' } }] },
    cancelled: { type: 'final', entry: ['settle', { type: 'announceSettled', params: { outcome: 'cancelled' } }] },
  },
});

export type SessionTurnSnapshot = SnapshotFrom<typeof sessionTurnMachine>;
export type DecisionEvent = Extract<SessionTurnEvent, { type: 'APPROVE' | 'REJECT' }>;

/**
 * Why a turn-approval would not be taken, or null when it would. 'stale-approval-id' is the spec's
 * "stale or different approvalId returns a conflict" (409); 'not-suspended' means nothing awaits a decision.
 */
export function decisionRefusal(snapshot: SessionTurnSnapshot, event: DecisionEvent): 'not-suspended' | 'stale-approval-id' | null {
  if (!snapshot.matches('suspended')) return 'not-suspended';
  return snapshot.can(event) ? null : 'stale-approval-id';
}

const OPEN_ROW = 'Session idle | POST sessions (open) or POST messages | valid request and permission';
const SUSPEND_ROW = 'Turn running | a write tool needing approval is reached | ';
const APPROVED_ROW = 'Turn suspended | POST turn-approval with decision `approved` | approvalId matches if supplied';
const REJECTED_ROW = 'Turn suspended | POST turn-approval with decision `rejected` | ';
const CANCEL_EXTENSION = 'POST sessions/:id/cancel settles an unsettled turn as cancelled; stream turn.completed outcome cancelled (issue 13)';
const EXPIRED_ROW = 'Turn suspended | approval after caller grant expiry with no replacement credentials | ';

export const SPEC_ROWS: readonly SpecTableRow[] = [
  { source: 'idle', event: 'OPEN', guard: 'validAndPermitted', target: 'queued', specRow: OPEN_ROW },
  { source: 'idle', event: 'MESSAGE', guard: 'validAndPermitted', target: 'queued', specRow: OPEN_ROW },
  { source: 'queued', event: 'START', target: 'running', extension: 'a worker picks the queued turn up; the spec leaves running implicit' },
  { source: 'queued', event: 'CANCEL', target: 'cancelled', extension: CANCEL_EXTENSION },
  { source: 'running', event: 'SUSPEND', target: 'suspended', specRow: SUSPEND_ROW },
  { source: 'running', event: 'COMPLETE', target: 'completed', extension: 'the model finishes the turn (stream turn.completed)' },
  { source: 'running', event: 'FAIL', target: 'failed', extension: 'the turn ends in error, e.g. a budget (stream budget.failed) or exhausted restarts' },
  { source: 'running', event: 'CANCEL', target: 'cancelled', extension: CANCEL_EXTENSION },
  {
    source: 'suspended', event: 'APPROVE', guard: 'grantExpiredWithoutReplacement', target: 'resumeQueued', specRow: EXPIRED_ROW,
  },
  { source: 'suspended', event: 'APPROVE', guard: 'approvalIdMatches', target: 'resumeQueued', specRow: APPROVED_ROW },
  // The spec row names no condition; a stale id is refused here too so it cannot reject a newer approval.
  { source: 'suspended', event: 'REJECT', guard: 'approvalIdMatches', target: 'rejected', specRow: REJECTED_ROW },
  {
    source: 'suspended', event: 'EXPIRE_APPROVAL', guard: 'approvalIdMatches', target: 'failed',
    extension: 'the approval window (SWITCHYARD_APPROVAL_TTL_MS, default 24 h) elapsed undecided: the turn fails APPROVAL_EXPIRED (issue 13)',
  },
  { source: 'suspended', event: 'CANCEL', target: 'cancelled', extension: CANCEL_EXTENSION },
  { source: 'resumeQueued', event: 'START', target: 'running', extension: 'a worker resumes the approved turn; approval does not wait for it (Endpoints rule 5)' },
  { source: 'resumeQueued', event: 'CANCEL', target: 'cancelled', extension: CANCEL_EXTENSION },
];
