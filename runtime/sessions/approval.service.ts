// Turn approval (SPEC conversations rule 5, "States and transitions" approval rows): decide, record, queue the resume.
import { decisionRefusal, type DecisionEvent } from '../../machines/session-turn.machine.js';
import type { Store } from '../../storage/store.js';
import type { Clock } from '../clock.js';
import { AppError, validation } from '../errors.js';
import type { SessionEventBus } from '../events/index.js';
import type { JsonSchemaValidator } from '../tools/index.js';
import { narrowCredentials, type NormalizedCallerCredentials } from '../vault/index.js';
import { readRevision } from '../turns/agent-revision.js';
import type { CatalogSource } from '../turns/turn-tools.js';
import { assertMayDecide } from './approval-access.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';
import type { SessionDispatcher } from './dispatcher.js';
import { visibleSession, type Caller } from './session-access.js';
import type { TurnActors } from './turn-actor.js';
import { applyTurnStep } from './turn-effects.js';

export interface DecisionRequest {
  readonly decision: 'approved' | 'rejected';
  readonly approvalId?: string;
  readonly comment?: string;
  readonly editedArgs?: Record<string, unknown>;
  readonly callerCredentials?: NormalizedCallerCredentials;
}

export interface ApprovalServiceDeps {
  store: Pick<Store, 'repos' | 'writer'>;
  clock: Clock;
  bus: SessionEventBus;
  grants: CallerGrants;
  deadlines?: ApprovalDeadlines;
  turns: TurnActors;
  dispatcher: SessionDispatcher;
  validator: JsonSchemaValidator;
  catalogFor: CatalogSource;
}

const conflict = (message: string) => new AppError('APPROVAL_CONFLICT', message);

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { repos } = deps.store;
  const { clock, bus } = deps;

  /** Edited arguments must fit the gated tool's input, checked now so the approver learns it, not the model. */
  function checkEditedArgs(orgId: string, toolName: string, args: Record<string, unknown>): void {
    const tool = deps.catalogFor(orgId).findTool(toolName);
    if (tool === undefined) return;
    const check = deps.validator.validate(tool.tool.inputSchema, args);
    if (!check.ok) throw validation('editedArgs do not match the tool input.', { issues: check.issues.map((i) => ({ path: i.path || '(root)', message: i.message })) });
  }

  /** Only entries the gated execution's revision binds at caller identity are kept (rule 6). */
  function replacementFor(automationId: string, revision: number | null, credentials: NormalizedCallerCredentials): NormalizedCallerCredentials {
    const pinned = revision === null ? undefined : readRevision(repos.automations, automationId, revision);
    return narrowCredentials(credentials, pinned?.belt ?? []).credentials;
  }

  return {
    async decide(caller: Caller, sessionId: string, request: DecisionRequest): Promise<{ ok: true; approvalId: string; decision: DecisionRequest['decision'] }> {
      const session = visibleSession(repos, caller, sessionId);
      if (request.decision === 'rejected' && request.editedArgs !== undefined) throw validation('editedArgs can only be sent with decision "approved".');
      const approval = repos.approvals.pendingOfSession(sessionId);
      // A flow's run approval is decided on the run route, never through the turn machine.
      if (approval === undefined || approval.kind === 'run') throw conflict('No turn approval is waiting in this session.');
      assertMayDecide(repos.tenancy, caller, approval, session.domain_id);
      if (request.approvalId !== undefined && request.approvalId !== approval.id) throw conflict('The approvalId is not the approval waiting in this session.');
      if (request.editedArgs !== undefined) checkEditedArgs(session.org_id, approval.tool ?? '', request.editedArgs);

      const execution = repos.executions.execution(approval.execution_id);
      if (execution === undefined) throw conflict('The approval no longer has a turn to resume.');
      const replacement = request.decision === 'approved' && request.callerCredentials !== undefined
        ? replacementFor(session.automation_id, execution.revision, request.callerCredentials)
        : null;
      const now = clock.now();
      const event: DecisionEvent = request.decision === 'approved'
        ? { type: 'APPROVE', now, approvalId: request.approvalId, comment: request.comment, editedArgs: request.editedArgs, replacementCredentials: replacement !== null && Object.keys(replacement.integrations).length > 0 }
        : { type: 'REJECT', now, approvalId: request.approvalId, comment: request.comment };
      const snapshot = deps.turns.peek(execution.id);
      if (snapshot === undefined || decisionRefusal(snapshot, event) !== null) throw conflict('The approval is no longer waiting for a decision.');

      await deps.turns.transition(execution.id, event, (step) => {
        if (!step.changed) throw conflict('The approval is no longer waiting for a decision.');
        const edited = request.editedArgs === undefined ? null : JSON.stringify(request.editedArgs);
        const decided = repos.approvals.decide(approval.id, { status: request.decision, decidedBy: caller.userId, comment: request.comment ?? null, editedArgs: edited }, now);
        if (!decided) throw conflict('The approval was decided meanwhile.');
        const out = [];
        if (approval.tool_call_id !== null && edited !== null) repos.executions.setToolCallArgs(approval.tool_call_id, edited, true);
        // Rule 11: supplied credentials replace the parked execution's grant; deleted when the turn settles.
        if (replacement !== null) deps.grants.store(session.org_id, execution.id, replacement, null);
        if (request.decision === 'rejected' && approval.tool_call_id !== null) {
          repos.executions.finishToolCall(approval.tool_call_id, { status: 'rejected', result: null, errorCode: 'REJECTED', errorMessage: 'The approver rejected this call.' }, now);
          out.push(
            ...bus.append(sessionId, {
              type: 'tool_call.finished',
              executionId: execution.id,
              toolCallId: approval.tool_call_id,
              toolName: approval.tool ?? '',
              status: 'rejected',
              errorCode: 'REJECTED',
              identity: null,
              durationMs: 0,
            })(),
          );
        }
        out.push(...applyTurnStep({ repos, bus, grants: deps.grants, clock, deadlines: deps.deadlines }, sessionId, step));
        return out;
      });
      // Rule 5: the resume is queued; this answer does not wait for the resumed call.
      deps.dispatcher.dispatch(sessionId);
      return { ok: true, approvalId: approval.id, decision: request.decision };
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
