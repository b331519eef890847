// Turn approval (SPEC conversations rule 5, "States and transitions" approval rows): who may decide, then the turn's decision.
import type { Storage } from '../../storage/port/storage.js';
import { validation } from '../errors.js';
import { approvalConflict, type DecisionAnswer, type DecisionRequest, type TurnApprovals } from '../turns/turn-approval.js';
import { assertMayDecide } from './approval-access.js';
import { visibleSession, type Caller } from './session-access.js';

export type { DecisionRequest } from '../turns/turn-approval.js';

export interface ApprovalServiceDeps {
  store: Pick<Storage, 'repos'>;
  /** What a decision does to the turn (turns/turn-approval.ts). */
  decisions: TurnApprovals;
}

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { repos } = deps.store;
  return {
    async decide(caller: Caller, sessionId: string, request: DecisionRequest): Promise<DecisionAnswer> {
      const session = await visibleSession(repos, caller, sessionId);
      if (request.decision === 'rejected' && request.editedArgs !== undefined) throw validation('editedArgs can only be sent with decision "approved".');
      const approval = await repos.approvals.pendingOfSession(sessionId);
      // A flow's run approval is decided on the run route, never through the turn machine.
      if (approval === undefined || approval.kind === 'run') throw approvalConflict('No turn approval is waiting in this session.');
      await assertMayDecide(repos.tenancy, caller, approval, session.domainId);
      if (request.approvalId !== undefined && request.approvalId !== approval.id) throw approvalConflict('The approvalId is not the approval waiting in this session.');
      return deps.decisions.decide(session, approval, caller.userId, request);
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
