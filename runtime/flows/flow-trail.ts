// Owns what a flow run writes to its session's audit trail: tool-call rows, run approvals, status, output, and their events.
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { ToolCall } from '../../storage/records/executions.js';
import type { Clock } from '../clock.js';
import type { PersistedSessionEvent, SessionEventBus } from '../events/index.js';
import { newId } from '../ids.js';
import type { JsonValue } from '../manifest/json-value.schema.js';
import type { ToolFile, ToolResult } from '../tools/tool-result.js';
import type { ApprovalDeadlines } from '../turns/approval-deadlines.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import { markStarted } from '../turns/settled-before-start.js';
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

/** One unit of work: writes go through `tx.repos`; events are stored with the unit and published after it commits. */
export interface TrailUnit {
  readonly now: number;
  readonly tx: UnitContext<PortRepositories>;
  emit(event: PersistedSessionEvent): Promise<void>;
}

export interface CallSpec {
  readonly stepId: string;
  readonly tool: string;
  readonly integrationId: string;
  readonly readonly: boolean;
  readonly args: Record<string, unknown>;
}

export interface FlowTrailDeps {
  readonly writer: Pick<Storage['writer'], 'submit'>;
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
  const { writer, bus, clock, grants } = deps;

  /** Runs `work` in the next group commit; the unit's outbox publishes its events once the commit is durable. */
  async function commit<T>(sessionId: string, work: (unit: TrailUnit) => Promise<T>): Promise<T> {
    return writer.submit((tx) => {
      const unit: TrailUnit = { now: clock.now(), tx, emit: async (event) => void (await bus.append(tx, sessionId, event)) };
      return work(unit);
    });
  }

  async function insertCall(unit: TrailUnit, run: RunRef, call: CallSpec, status: ToolCall['status'], identity: ToolCall['identity'], approvalId: string | null): Promise<ToolCall> {
    return unit.tx.repos.executions.insertToolCall({
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

    async started(unit: TrailUnit, run: RunRef, resumed: boolean): Promise<void> {
      await markStarted(unit.tx.repos.executions, run.executionId, unit.now);
      await unit.emit({ type: 'turn.started', executionId: run.executionId, resumed });
    },

    /** A new call row in `running`, or an existing row (approved or retried) moved back to `running`. */
    async callStarted(unit: TrailUnit, run: RunRef, call: CallSpec, identity: ToolCall['identity'], existing: ToolCall | undefined): Promise<ToolCall> {
      let row: ToolCall;
      if (existing === undefined) row = await insertCall(unit, run, call, 'running', identity, null);
      else {
        await unit.tx.repos.executions.startToolCall(existing.id, existing.args, false, identity);
        row = (await unit.tx.repos.executions.toolCall(existing.id))!;
      }
      await unit.emit({ type: 'tool_call.started', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, step: row.step, edited: false });
      return row;
    },

    async callFinished(unit: TrailUnit, run: RunRef, row: ToolCall, result: ToolResult, startedAt: number): Promise<void> {
      const identity = row.identity;
      if (result.ok) {
        await unit.tx.repos.executions.finishToolCall(row.id, { status: 'succeeded', result: JSON.stringify(result.output ?? null), errorCode: null, errorMessage: null }, unit.now);
        for (const file of result.files) await addFile(unit, run, file);
      } else {
        await unit.tx.repos.executions.finishToolCall(row.id, { status: 'failed', result: failureRecord(result), errorCode: result.code, errorMessage: result.message }, unit.now);
      }
      await unit.emit({
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
    async callRefused(unit: TrailUnit, run: RunRef, call: CallSpec, failure: RecordedFailure, existing: ToolCall | undefined, detail?: unknown): Promise<void> {
      const row = existing ?? (await insertCall(unit, run, call, 'failed', null, null));
      const result = JSON.stringify(detail === undefined ? failure : { ...failure, detail });
      await unit.tx.repos.executions.finishToolCall(row.id, { status: 'failed', result, errorCode: failure.code, errorMessage: failure.message }, unit.now);
      if (CALLER_FAILURE_CODES.has(failure.code)) {
        await unit.emit({
          type: 'caller_credential.failed',
          executionId: run.executionId,
          toolCallId: row.id,
          integrationId: call.integrationId,
          code: failure.code as 'CALLER_CREDENTIALS_REQUIRED' | 'CALLER_CREDENTIAL_EXPIRED',
        });
      }
      await unit.emit({ type: 'tool_call.finished', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, status: 'failed', errorCode: failure.code, identity: row.identity, durationMs: 0 });
    },

    /** Parks the run on a run approval (approvals.kind = 'run'); returns the approval id. */
    async suspend(unit: TrailUnit, run: RunRef, call: CallSpec, routing: 'policy' | 'user'): Promise<string> {
      const approvalId = newId();
      const row = await insertCall(unit, run, call, 'awaiting_approval', null, approvalId);
      await unit.tx.repos.approvals.insert({
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
      await unit.tx.repos.executions.setStatus(run.executionId, 'suspended', unit.now);
      await deps.deadlines?.arm(unit.tx.repos, run.executionId, unit.now);
      await unit.emit({ type: 'turn.suspended', executionId: run.executionId, approvalId, toolName: call.tool, toolCallId: row.id });
      return approvalId;
    },

    /** The gated call after a rejection: the row shows it never ran. */
    async callRejected(unit: TrailUnit, run: RunRef, row: ToolCall): Promise<void> {
      const failure = { code: FLOW_FAILURE.REJECTED, message: 'The run approval was rejected; the call was not made.' };
      await unit.tx.repos.executions.finishToolCall(row.id, { status: 'rejected', result: JSON.stringify(failure), errorCode: failure.code, errorMessage: failure.message }, unit.now);
      await unit.emit({ type: 'tool_call.finished', executionId: run.executionId, toolCallId: row.id, toolName: row.tool, status: 'rejected', errorCode: failure.code, identity: null, durationMs: 0 });
    },

    /**
     * Settles the run: completed runs store their output as the session's final assistant message. The caller grant
     * is deleted in the same unit (SPEC caller rule 7: custody ends when the execution settles).
     */
    async settle(unit: TrailUnit, run: RunRef, outcome: 'completed' | 'failed' | 'rejected', failure: RecordedFailure | null, output?: JsonValue): Promise<void> {
      if (outcome === 'completed') {
        const value = output ?? null;
        await unit.tx.repos.sessions.insertMessage({
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
      await unit.tx.repos.executions.settle(run.executionId, outcome, unit.now, failure?.code ?? null, failure?.message ?? null);
      await grants.discard(unit.tx.repos, run.executionId);
      if (run.fresh !== true) await deps.deadlines?.disarm(unit.tx.repos, run.executionId);
      await unit.tx.repos.sessions.touchSession(run.sessionId, unit.now);
      await unit.emit({ type: 'turn.completed', executionId: run.executionId, outcome, errorCode: failure?.code ?? null });
    },
  };

  async function addFile(unit: TrailUnit, run: RunRef, file: ToolFile): Promise<void> {
    const id = newId();
    await unit.tx.repos.sessions.insertFile({ id, sessionId: run.sessionId, executionId: run.executionId, name: file.name, mediaType: file.mediaType, content: file.content, createdAt: unit.now });
    await unit.emit({ type: 'file.added', executionId: run.executionId, fileId: id, name: file.name, mediaType: file.mediaType, sizeBytes: file.content.byteLength });
  }
}

export type FlowTrail = ReturnType<typeof createFlowTrail>;
