// Deciding a suspended turn's approval (SPEC conversations rule 5): record the decision, move the turn, queue the resume.
/*
 * Who may decide is the session's question (sessions/approval.service.ts checks visibility and the decider first);
 * this module owns what a decision does to the turn: edited arguments checked against the gated tool, replacement
 * caller credentials narrowed to the pinned revision, and the APPROVE / REJECT step with its rows in one unit.
 */
import { decisionRefusal, type DecisionEvent } from '../../machines/session-turn.machine.js';
import type { Approval } from '../../storage/records/approvals.js';
import type { Session } from '../../storage/records/sessions.js';
import { AppError, validation } from '../errors.js';
import type { JsonSchemaValidator } from '../tools/index.js';
import { narrowCredentials, type NormalizedCallerCredentials } from '../vault/index.js';
import { readRevision } from './agent-revision.js';
import type { SessionDispatcher } from './dispatcher.js';
import { createTurnMover, type TurnMoverDeps } from './turn-mover.js';
import type { CatalogSource } from './turn-tools.js';

export interface DecisionRequest {
  readonly decision: 'approved' | 'rejected';
  readonly approvalId?: string;
  readonly comment?: string;
  readonly editedArgs?: Record<string, unknown>;
  readonly callerCredentials?: NormalizedCallerCredentials;
}

export interface DecisionAnswer {
  readonly ok: true;
  readonly approvalId: string;
  readonly decision: DecisionRequest['decision'];
}

export interface TurnApprovalsDeps extends TurnMoverDeps {
  dispatcher: Pick<SessionDispatcher, 'dispatch'>;
  validator: JsonSchemaValidator;
  catalogFor: CatalogSource;
}

export const approvalConflict = (message: string) => new AppError('APPROVAL_CONFLICT', message);

export function createTurnApprovals(deps: TurnApprovalsDeps) {
  const { repos } = deps.store;

  /** Edited arguments must fit the gated tool's input, checked now so the approver learns it, not the model. */
  async function checkEditedArgs(orgId: string, toolName: string, args: Record<string, unknown>): Promise<void> {
    const tool = (await deps.catalogFor(orgId)).findTool(toolName);
    if (tool === undefined) return;
    const check = deps.validator.validate(tool.tool.inputSchema, args);
    if (!check.ok) throw validation('editedArgs do not match the tool input.', { issues: check.issues.map((i) => ({ path: i.path || '(root)', message: i.message })) });
  }

  /** Only entries the gated execution's revision binds at caller identity are kept (rule 6). */
  async function replacementFor(automationId: string, revision: number | null, credentials: NormalizedCallerCredentials): Promise<NormalizedCallerCredentials> {
    const pinned = revision === null ? undefined : await readRevision(repos.automations, automationId, revision);
    return narrowCredentials(credentials, pinned?.belt ?? []).credentials;
  }

  return {
    /** `approval` is the session's pending turn approval, already checked to be the caller's to decide. */
    async decide(session: Session, approval: Approval, deciderId: string, request: DecisionRequest): Promise<DecisionAnswer> {
      if (request.editedArgs !== undefined) await checkEditedArgs(session.orgId, approval.tool ?? '', request.editedArgs);
      const execution = await repos.executions.execution(approval.executionId);
      if (execution === undefined) throw approvalConflict('The approval no longer has a turn to resume.');
      const replacement = request.decision === 'approved' && request.callerCredentials !== undefined
        ? await replacementFor(session.automationId, execution.revision, request.callerCredentials)
        : null;
      const now = deps.clock.now();
      const event: DecisionEvent = request.decision === 'approved'
        ? { type: 'APPROVE', now, approvalId: request.approvalId, comment: request.comment, editedArgs: request.editedArgs, replacementCredentials: replacement !== null && Object.keys(replacement.integrations).length > 0 }
        : { type: 'REJECT', now, approvalId: request.approvalId, comment: request.comment };
      const snapshot = await deps.turns.peek(execution.id);
      const stale = () => approvalConflict('The approval is no longer waiting for a decision.');
      if (snapshot === undefined || decisionRefusal(snapshot, event) !== null) throw stale();

      const sessionId = session.id;
      await createTurnMover(deps, { sessionId, executionId: execution.id }).move(event, {
        refused: stale,
        before: async (_step, tx) => {
          const unitRepos = tx.repos;
          const edited = request.editedArgs ?? null;
          const decided = await unitRepos.approvals.decide(approval.id, { status: request.decision, decidedBy: deciderId, comment: request.comment ?? null, editedArgs: edited }, now);
          if (!decided) throw approvalConflict('The approval was decided meanwhile.');
          if (approval.toolCallId !== null && edited !== null) await unitRepos.executions.setToolCallArgs(approval.toolCallId, edited, true);
          // Rule 11: supplied credentials replace the parked execution's grant; deleted when the turn settles.
          if (replacement !== null) await deps.grants.store(unitRepos, session.orgId, execution.id, replacement, null);
          if (request.decision !== 'rejected' || approval.toolCallId === null) return [];
          await unitRepos.executions.finishToolCall(approval.toolCallId, { status: 'rejected', result: null, errorCode: 'REJECTED', errorMessage: 'The approver rejected this call.' }, now);
          return deps.bus.append(tx, sessionId, {
            type: 'tool_call.finished',
            executionId: execution.id,
            toolCallId: approval.toolCallId,
            toolName: approval.tool ?? '',
            status: 'rejected',
            errorCode: 'REJECTED',
            identity: null,
            durationMs: 0,
          });
        },
      });
      // Rule 5: the resume is queued; this answer does not wait for the resumed call.
      deps.dispatcher.dispatch(sessionId);
      return { ok: true, approvalId: approval.id, decision: request.decision };
    },
  };
}

export type TurnApprovals = ReturnType<typeof createTurnApprovals>;
