// Cancel a session's queued, running or suspended execution (issue 13 item 1): who may, which one, and the repeat answer.
import { CANCELLED } from '../../machines/session-turn.machine.js';
import type { Execution } from '../../storage/records/executions.js';
import type { Storage } from '../../storage/port/storage.js';
import { AppError, notFound } from '../errors.js';
import { alreadySettled, type ExecutionCancel } from '../turns/execution-cancel.js';
import { participation, visibleSession, type Caller } from './session-access.js';

export interface CancelServiceDeps {
  store: Pick<Storage, 'repos'>;
  /** Settles and aborts the execution (turns/execution-cancel.ts). */
  executions: ExecutionCancel;
}

export interface CancelResult {
  readonly executionId: string;
  readonly status: 'cancelled';
}

const isCancelled = (row: Pick<Execution, 'settledAt' | 'errorCode'>) => row.settledAt !== null && row.errorCode === CANCELLED;

export function createCancelService(deps: CancelServiceDeps) {
  const { repos } = deps.store;
  return {
    /**
     * `executionId` defaults to the session's oldest unsettled execution (the one its queue waits on). Visible
     * (else 404), drivable by the caller (else 403, as for appending a message). Cancelling an execution that is
     * already cancelled answers the same body again; one that finished otherwise, or an idle session, is 409.
     */
    async cancel(caller: Caller, sessionId: string, executionId?: string): Promise<CancelResult> {
      const session = await visibleSession(repos, caller, sessionId);
      // Appending's permission half: a closed session or an unpublished agent must not keep work from stopping.
      if ((await participation(repos, caller, session)).readOnlyReason === 'not_a_participant') {
        throw new AppError('SESSION_NOT_DRIVABLE', 'You cannot cancel work in this session.', { readOnlyReason: 'not_a_participant' });
      }
      const target = executionId === undefined ? await repos.executions.firstUnsettled(sessionId) : await repos.executions.execution(executionId);
      if (target === undefined || target.sessionId !== sessionId) {
        if (executionId !== undefined) throw notFound();
        throw new AppError('CONFLICT', 'Nothing is queued, running or waiting for approval in this session.');
      }
      if (isCancelled(target)) return { executionId: target.id, status: 'cancelled' };
      if (target.settledAt !== null) throw alreadySettled(target);

      try {
        await deps.executions.cancel((await repos.automations.automation(session.automationId))?.kind, sessionId, target.id);
      } catch (error) {
        // Raced with another cancel of the same execution: same answer as a repeat.
        const now = await repos.executions.execution(target.id);
        if (now !== undefined && isCancelled(now)) return { executionId: target.id, status: 'cancelled' };
        throw error;
      }
      return { executionId: target.id, status: 'cancelled' };
    },
  };
}

export type CancelService = ReturnType<typeof createCancelService>;
