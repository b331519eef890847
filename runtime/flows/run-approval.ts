// Owns deciding a flow's run approval (partner `POST /worker/approvals/runs/:runId`): record, then resume or reject the run.
import type { Execution } from '../../storage/records/executions.js';
import type { Session } from '../../storage/records/sessions.js';
import type { Storage } from '../../storage/port/storage.js';
import { AppError, notFound, validation } from '../errors.js';
import { assertMayDecide } from '../sessions/approval-access.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import { visibleSession, type Caller } from '../sessions/session-access.js';
import { FLOW_FAILURE } from './flow-errors.js';
import type { FlowTrail, RunRef } from './flow-trail.js';

/** SPEC Limits: approval comment at most 2,000 characters. */
export const APPROVAL_COMMENT_MAX = 2_000;

export interface RunApprovalRequest {
  /** The flow run: its session id (what a fire answer returns) or its execution id. */
  readonly runId: string;
  readonly decision: 'approved' | 'rejected';
  readonly comment?: string | null;
  /** When given, it must be the approval waiting now; a stale or different id is 409 APPROVAL_CONFLICT. */
  readonly approvalId?: string;
}

export interface RunApprovalAnswer {
  readonly ok: true;
  readonly approvalId: string;
  readonly decision: 'approved' | 'rejected';
}

export interface RunApprovalDeps {
  readonly store: Pick<Storage, 'repos' | 'writer'>;
  readonly trail: FlowTrail;
  /** After commit: an approved run is resumed, a rejected one lets the session's queue move on. */
  readonly dispatcher: Pick<SessionDispatcher, 'dispatch'>;
}

const conflict = (message: string) => new AppError('APPROVAL_CONFLICT', message);

export function createRunApprovals(deps: RunApprovalDeps) {
  const { repos } = deps.store;

  /** The run a runId names, if the caller may see it (else the uniform 404): a flow session and its execution. */
  async function visibleRun(caller: Caller, runId: string): Promise<{ session: Session; execution: Execution }> {
    const byExecution = await repos.executions.execution(runId);
    const session = await visibleSession(repos, caller, byExecution?.sessionId ?? runId);
    if ((await repos.automations.automation(session.automationId))?.kind !== 'flow') throw notFound();
    const execution = byExecution ?? (await repos.executions.latestExecution(session.id));
    if (execution === undefined) throw notFound();
    return { session, execution };
  }

  return {
    visibleRun,

    /**
     * Decides the run approval the run waits on. Same contract as a turn approval (SPEC conversations rule 5):
     * visibility first (404), then "nothing waiting" or a stale `approvalId` (409 APPROVAL_CONFLICT), then the
     * domain's current approval policy (403). Returns once the decision is durable; it does not wait for the run.
     */
    async decide(caller: Caller, request: RunApprovalRequest): Promise<RunApprovalAnswer> {
      if (request.decision !== 'approved' && request.decision !== 'rejected') throw validation('decision must be "approved" or "rejected".');
      const comment = request.comment ?? null;
      if (comment !== null && comment.length > APPROVAL_COMMENT_MAX) throw validation(`comment must be at most ${APPROVAL_COMMENT_MAX} characters.`);

      const { session, execution } = await visibleRun(caller, request.runId);
      const pending = await repos.approvals.pendingOfSession(session.id);
      if (pending === undefined || pending.kind !== 'run' || pending.executionId !== execution.id) throw conflict('No run approval is waiting in this run.');
      await assertMayDecide(repos.tenancy, caller, pending, session.domainId);
      if (request.approvalId !== undefined && request.approvalId !== pending.id) throw conflict('The approvalId is not the approval this run waits on.');

      const run: RunRef = { orgId: session.orgId, sessionId: session.id, executionId: execution.id, initiatedBy: execution.createdBy };
      await deps.trail.commit(session.id, async (unit) => {
        const unitRepos = unit.tx.repos;
        // Re-read inside the unit: a concurrent decision on the same approval loses here, writing nothing.
        if ((await unitRepos.executions.execution(execution.id))?.status !== 'suspended') throw conflict('The run is no longer waiting for a decision.');
        if (!(await unitRepos.approvals.decide(pending.id, { status: request.decision, decidedBy: caller.userId, comment, editedArgs: null }, unit.now))) {
          throw conflict('The approval was decided meanwhile.');
        }
        if (request.decision === 'approved') {
          await unitRepos.executions.setStatus(execution.id, 'resume_queued', unit.now);
          return;
        }
        const call = pending.toolCallId === null ? undefined : await unitRepos.executions.toolCall(pending.toolCallId);
        if (call !== undefined) await deps.trail.callRejected(unit, run, call);
        await deps.trail.settle(unit, run, 'rejected', { code: FLOW_FAILURE.REJECTED, message: `The run approval for "${pending.tool ?? 'the gated step'}" was rejected.` });
      });
      deps.dispatcher.dispatch(session.id);
      return { ok: true, approvalId: pending.id, decision: request.decision };
    },
  };
}

export type RunApprovals = ReturnType<typeof createRunApprovals>;
