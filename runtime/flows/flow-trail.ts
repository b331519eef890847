// Owns what a flow run writes to its session's audit trail: tool-call rows, run approvals, status, output, and their events.
import type { Repositories } from '../../storage/repos/index.js';
import type { ToolCall } from '../../storage/records/executions.js';
import type { GroupCommitWriter } from '../../storage/group-commit.js';
import type { Clock } from '../clock.js';
import type { PersistedSessionEvent, SessionEventBus } from '../events/index.js';
import { newId } from '../ids.js';
import type { JsonValue } from '../manifest/json-value.schema.js';
import type { ToolFile, ToolResult } from '../tools/tool-result.js';
import type { ApprovalDeadlines } from '../turns/approval-deadlines.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import { CALLER_FAILURE_CODES, FLOW_FAILURE, type RecordedFailure } from './flow-errors.js';

/** The run a write belongs to. */
export interface RunRef {
  readonly orgId: string;
  readonly sessionId: string;
  readonly executionId: string;
  /** The person the run was started for (null for schedule and event firings). */
  readonly initiatedBy: string | null;
  /** Picked up `queued`: it never parked, so no approval window can be open (settling reads no timer). */
  readonly fresh?: boolean;
}

/** One unit of work: writes are synchronous; events are stored with the unit and published after it commits. */
export interface TrailUnit {
  readonly now: number;
  emit(event: PersistedSessionEvent): void;
}

export interface CallSpec {
  readonly stepId: string;
  readonly tool: string;
  readonly integrationId: string;
  readonly readonly: boolean;
  readonly args: Record<string, unknown>;
}

export interface FlowTrailDeps {
  readonly repos: Pick<Repositories, 'executions' | 'approvals' | 'sessions'>;
  readonly writer: Pick<GroupCommitWriter, 'submit'>;
  readonly bus: Pick<SessionEventBus, 'append' | 'publish'>;
  readonly clock: Clock;
  /** Custody of the run's caller grant: discarded (with its expiry timer) when the run settles. */
  readonly grants: Pick<CallerGrants, 'discard'>;
  /** The approval window: armed when a run parks on a run approval, disarmed when it settles. */
  readonly deadlines?: ApprovalDeadlines;
}

/** What a failed call keeps: code, message, and the tool layer's own detail (already redacted by the executor). */
function failureRecord(result: Exclude<ToolResult, { ok: true }>): string {
  const { ok: _ok, ...rest } = result;
  return JSON.stringify(rest);
}

export function createFlowTrail(deps: FlowTrailDeps) {
  const { repos, writer, bus, clock, grants } = deps;

  /** Runs `work` in the next group commit; the unit's outbox publishes its events once the commit is durable. */
  async function commit<T>(sessionId: string, work: (unit: TrailUnit) => T): Promise<T> {
    return writer.submit(() => {
      const unit: TrailUnit = { now: clock.now(), emit: (event) => void bus.append(sessionId, event)() };
      return work(unit);
    });
  }

  function insertCall(unit: TrailUnit, run: RunRef, call: CallSpec, status: ToolCall['status'], identity: ToolCall['identity'], approvalId: string | null): ToolCall {
    return repos.executions.insertToolCall({
      id: newId(),
      executionId: run.executionId,
      sessionId: run.sessionId,
      tool: call.tool,
      args: call.args,
      edited: false,
      identity,
      status,
      createdAt: unit.now,
      // The step id is the call's reference: it is unique per run and is how a resumed run finds its calls again.
      callRef: call.stepId,
      integrationId: call.integrationId,
      readonly: call.readonly,
      approvalId,
    });
  }

  return {
    commit,

    started(unit: TrailUnit, run: RunRef, resumed: boolean): void {
      repos.executions.markStarted(run.executionId, unit.now);
      unit.emit({ type: 'turn.started', executionId: run.executionId, resumed });
    },

    /** A new call row in `running`, or an existing row (approved or retried) moved back to `running`. */
    callStarted(unit: TrailUnit, run: RunRef, call: CallSpec, identity: ToolCall['identity'], existing: ToolCall | undefined): ToolCall {
      let row: ToolCall;
      if (existing === undefined) row = insertCall(unit, run, call, 'running', identity, null);
      else {
        repos.executions.startToolCall(existing.id, existing.args, false, identity);
        row = repos.executions.toolCall(existing.id)!;
      }
      unit.emit({ type: 'tool_call.started', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, step: row.step, edited: false });
      return row;
    },

    callFinished(unit: TrailUnit, run: RunRef, row: ToolCall, result: ToolResult, startedAt: number): void {
      const identity = row.identity;
      if (result.ok) {
        repos.executions.finishToolCall(row.id, { status: 'succeeded', result: JSON.stringify(result.output ?? null), errorCode: null, errorMessage: null }, unit.now);
        for (const file of result.files) addFile(unit, run, file);
      } else {
        repos.executions.finishToolCall(row.id, { status: 'failed', result: failureRecord(result), errorCode: result.code, errorMessage: result.message }, unit.now);
      }
      unit.emit({
        type: 'tool_call.finished',
        executionId: run.executionId,
        toolCallId: row.id,
        toolName: row.tool,
        status: result.ok ? 'succeeded' : 'failed',
        errorCode: result.ok ? null : result.code,
        identity,
        durationMs: Math.max(0, unit.now - startedAt),
      });
    },

    /** A call that could not run (bad arguments, no identity, interrupted): a failed row, and the caller event when it applies. */
    callRefused(unit: TrailUnit, run: RunRef, call: CallSpec, failure: RecordedFailure, existing: ToolCall | undefined, detail?: unknown): void {
      const row = existing ?? insertCall(unit, run, call, 'failed', null, null);
      const result = JSON.stringify(detail === undefined ? failure : { ...failure, detail });
      repos.executions.finishToolCall(row.id, { status: 'failed', result, errorCode: failure.code, errorMessage: failure.message }, unit.now);
      if (CALLER_FAILURE_CODES.has(failure.code)) {
        unit.emit({
          type: 'caller_credential.failed',
          executionId: run.executionId,
          toolCallId: row.id,
          integrationId: call.integrationId,
          code: failure.code as 'CALLER_CREDENTIALS_REQUIRED' | 'CALLER_CREDENTIAL_EXPIRED',
        });
      }
      unit.emit({ type: 'tool_call.finished', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, status: 'failed', errorCode: failure.code, identity: row.identity, durationMs: 0 });
    },

    /** Parks the run on a run approval (approvals.kind = 'run'); returns the approval id. */
    suspend(unit: TrailUnit, run: RunRef, call: CallSpec, routing: 'policy' | 'user'): string {
      const approvalId = newId();
      const row = insertCall(unit, run, call, 'awaiting_approval', null, approvalId);
      repos.approvals.insert({
        id: approvalId,
        orgId: run.orgId,
        sessionId: run.sessionId,
        executionId: run.executionId,
        toolCallId: row.id,
        kind: 'run',
        routing,
        tool: call.tool,
        args: call.args,
        initiatedBy: run.initiatedBy,
        createdAt: unit.now,
      });
      repos.executions.setStatus(run.executionId, 'suspended', unit.now);
      deps.deadlines?.arm(run.executionId, unit.now);
      unit.emit({ type: 'turn.suspended', executionId: run.executionId, approvalId, toolName: call.tool, toolCallId: row.id });
      return approvalId;
    },

    /** The gated call after a rejection: the row shows it never ran. */
    callRejected(unit: TrailUnit, run: RunRef, row: ToolCall): void {
      const failure = { code: FLOW_FAILURE.REJECTED, message: 'The run approval was rejected; the call was not made.' };
      repos.executions.finishToolCall(row.id, { status: 'rejected', result: JSON.stringify(failure), errorCode: failure.code, errorMessage: failure.message }, unit.now);
      unit.emit({ type: 'tool_call.finished', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, status: 'rejected', errorCode: failure.code, identity: null, durationMs: 0 });
    },

    /**
     * Settles the run: completed runs store their output as the session's final assistant message. The caller grant
     * is deleted in the same unit (SPEC caller rule 7: custody ends when the execution settles).
     */
    settle(unit: TrailUnit, run: RunRef, outcome: 'completed' | 'failed' | 'rejected', failure: RecordedFailure | null, output?: JsonValue): void {
      if (outcome === 'completed') {
        const value = output ?? null;
        repos.sessions.insertMessage({
          id: newId(),
          sessionId: run.sessionId,
          executionId: run.executionId,
          role: 'assistant',
          authorUserId: null,
          content: typeof value === 'string' ? value : JSON.stringify(value, null, 2),
          payload: JSON.stringify({ output: value }),
          createdAt: unit.now,
        });
      }
      repos.executions.settle(run.executionId, outcome, unit.now, failure?.code ?? null, failure?.message ?? null);
      grants.discard(run.executionId);
      if (run.fresh !== true) deps.deadlines?.disarm(run.executionId);
      repos.sessions.touchSession(run.sessionId, unit.now);
      unit.emit({ type: 'turn.completed', executionId: run.executionId, outcome, errorCode: failure?.code ?? null });
    },
  };

  function addFile(unit: TrailUnit, run: RunRef, file: ToolFile): void {
    const id = newId();
    repos.sessions.insertFile({ id, sessionId: run.sessionId, executionId: run.executionId, name: file.name, mediaType: file.mediaType, content: file.content, createdAt: unit.now });
    unit.emit({ type: 'file.added', executionId: run.executionId, fileId: id, name: file.name, mediaType: file.mediaType, sizeBytes: file.content.byteLength });
  }
}

export type FlowTrail = ReturnType<typeof createFlowTrail>;
