// Every durable write of a running turn: one unit of work per fact (a step rides with its first call), events published after commit.
import type { ToolCall } from '../../storage/records/executions.js';
import type { PersistedSessionEvent, SessionEventEnvelope } from '../events/index.js';
import { newId } from '../ids.js';
import type { ToolCallRequest } from '../models/index.js';
import type { AssistantPayload, ToolPayload } from './conversation.js';
import type { BudgetBreach } from './turn-budget.js';
import type { TurnContext } from './turn-context.js';
import type { TurnDeps } from './turn-deps.js';
import { modelResult, storedResult, type CallOutcome } from './tool-outcome.js';
import { createTurnMover, type MoveOptions, type TurnMover } from './turn-mover.js';

/** One model step as it is stored: the assistant message id its deltas carried, its text and its calls. */
export interface RecordedStep {
  readonly messageId: string;
  readonly text: string;
  readonly toolCalls: AssistantPayload['toolCalls'];
  readonly tokens: number;
}

export type TurnRecorder = ReturnType<typeof createTurnRecorder>;
export function createTurnRecorder(deps: TurnDeps, ctx: TurnContext) {
  const { repos } = deps.store;
  const { bus, clock } = deps;
  const sessionId = ctx.session.id;
  const executionId = ctx.execution.id;
  const mover = createTurnMover(deps, { sessionId, executionId });

  // A model step that issued calls is written with the unit that handles its first call (issue 12 item 5: one
  // unit per model step): nothing external happens in between, so a crash before it simply repeats the step.
  let deferred: (() => void) | null = null;
  const takeDeferred = () => {
    const work = deferred;
    deferred = null;
    return work;
  };
  async function withDeferred<T>(run: (write: () => void) => Promise<T>): Promise<T> {
    const work = takeDeferred();
    try {
      return await run(() => work?.());
    } catch (error) {
      deferred ??= work;
      throw error;
    }
  }
  const commit = (work: () => SessionEventEnvelope[]) =>
    withDeferred((write) =>
      mover.commit(() => {
        write();
        return work();
      }),
    );
  const move = (event: Parameters<TurnMover['move']>[0], options: MoveOptions = {}) =>
    withDeferred((write) =>
      mover.move(event, {
        ...options,
        before: (step) => {
          write();
          return options.before?.(step) ?? [];
        },
      }),
    );

  const append = (event: PersistedSessionEvent): SessionEventEnvelope[] => bus.append(sessionId, event)();

  function writeStep(step: RecordedStep): void {
    const payload: AssistantPayload = { toolCalls: step.toolCalls };
    repos.sessions.insertMessage({
      id: step.messageId,
      sessionId,
      executionId,
      role: 'assistant',
      authorUserId: null,
      content: step.text,
      payload: JSON.stringify(payload),
      createdAt: clock.now(),
    });
  }

  function storeUsage(step: { steps?: number; tokens?: number } = {}): void {
    repos.executions.addUsage(executionId, ctx.meter.take(step), clock.now());
  }

  function writeToolMessage(call: Pick<ToolCallRequest, 'toolCallId' | 'toolName'>, outcome: CallOutcome): void {
    const payload: ToolPayload = { toolCallId: call.toolCallId, toolName: call.toolName, result: modelResult(outcome.result) };
    repos.sessions.insertMessage({
      id: newId(),
      sessionId,
      executionId,
      role: 'tool',
      authorUserId: null,
      content: `${call.toolName}: ${outcome.result.ok ? 'ok' : outcome.result.code}`,
      payload: JSON.stringify(payload),
      createdAt: clock.now(),
    });
  }

  function insertCall(call: ToolCallRequest, fields: Pick<ToolCall, 'status' | 'integrationId' | 'readonly'> & { approvalId?: string; id?: string }): ToolCall {
    return repos.executions.insertToolCall({
      id: fields.id ?? newId(),
      executionId,
      sessionId,
      tool: call.toolName,
      args: call.args ?? {},
      edited: false,
      identity: null,
      status: fields.status,
      createdAt: clock.now(),
      callRef: call.toolCallId,
      integrationId: fields.integrationId,
      readonly: fields.readonly,
      approvalId: fields.approvalId ?? null,
    });
  }

  function started(row: ToolCall, edited: boolean): SessionEventEnvelope[] {
    return append({ type: 'tool_call.started', executionId, toolCallId: row.id, toolName: row.tool, step: row.step, edited });
  }

  function finish(row: ToolCall, outcome: CallOutcome): SessionEventEnvelope[] {
    const now = clock.now();
    const { result } = outcome;
    const out: SessionEventEnvelope[] = [];
    repos.executions.finishToolCall(
      row.id,
      {
        status: result.ok ? 'succeeded' : 'failed',
        result: storedResult(result),
        errorCode: result.ok ? null : result.code,
        errorMessage: result.ok ? null : result.message,
        identity: outcome.identity,
      },
      now,
    );
    if (outcome.credentialFailure) {
      out.push(...append({ type: 'caller_credential.failed', executionId, toolCallId: row.id, ...outcome.credentialFailure }));
    }
    for (const file of result.ok && 'files' in result ? result.files : []) {
      const fileId = newId();
      repos.sessions.insertFile({ id: fileId, sessionId, executionId, name: file.name, mediaType: file.mediaType, content: file.content, createdAt: now });
      out.push(...append({ type: 'file.added', executionId, fileId, name: file.name, mediaType: file.mediaType, sizeBytes: file.content.byteLength }));
    }
    out.push(
      ...append({
        type: 'tool_call.finished',
        executionId,
        toolCallId: row.id,
        toolName: row.tool,
        status: result.ok ? 'succeeded' : 'failed',
        errorCode: result.ok ? null : result.code,
        identity: outcome.identity,
        durationMs: outcome.durationMs,
      }),
    );
    return out;
  }

  return {
    commit,
    move,

    /** A step that issued tool calls: its assistant message and usage, written with the next unit of this turn. */
    recordStep(step: RecordedStep): void {
      deferred = () => {
        writeStep(step);
        storeUsage({ steps: 1, tokens: step.tokens });
      };
    },

    /** The final step (no tool calls): the answer and the completion commit together. */
    complete: (step: RecordedStep) =>
      move({ type: 'COMPLETE', now: clock.now() }, {
        before: () => {
          writeStep(step);
          storeUsage({ steps: 1, tokens: step.tokens });
          return [];
        },
      }),

    fail: (code: string, message: string) =>
      move({ type: 'FAIL', now: clock.now(), code, message }, {
        facts: { errorMessage: message },
        before: () => {
          storeUsage();
          return [];
        },
      }),

    /** budget.failed, then the failed turn; a step that broke the token budget is kept in the log. */
    failBudget: (breach: BudgetBreach, step?: RecordedStep) =>
      move(
        { type: 'FAIL', now: clock.now(), code: 'BUDGET_EXCEEDED', message: `The turn's ${breach.budget} budget (${breach.limit}) is used up.` },
        {
          facts: { errorMessage: `The turn's ${breach.budget} budget (${breach.limit}) is used up.` },
          before: () => {
            if (step) writeStep(step);
            storeUsage(step ? { steps: 1, tokens: step.tokens } : {});
            return append({ type: 'budget.failed', executionId, budget: breach.budget, limit: breach.limit, used: breach.budget === 'wall_time' ? ctx.meter.usage().ms : breach.used });
          },
        },
      ),

    /** A new call about to run: row `running` and tool_call.started commit before the upstream is contacted. */
    openCall: async (call: ToolCallRequest, integrationId: string, readonly: boolean): Promise<ToolCall> => {
      let row!: ToolCall;
      await commit(() => {
        row = insertCall(call, { status: 'running', integrationId, readonly });
        return started(row, false);
      });
      return row;
    },

    /** An approved (or restarted readonly) call starting: the arguments it runs with, edited or not. */
    startCall: async (row: ToolCall, args: Record<string, unknown>, edited: boolean): Promise<ToolCall> => {
      await commit(() => {
        repos.executions.startToolCall(row.id, args, edited, null);
        return started(row, edited);
      });
      return { ...row, status: 'running', args, edited };
    },

    /** The call's outcome, its files, and the tool message the model reads next step. */
    answer: (row: ToolCall, call: Pick<ToolCallRequest, 'toolCallId' | 'toolName'>, outcome: CallOutcome) =>
      commit(() => {
        const out = finish(row, outcome);
        writeToolMessage(call, outcome);
        storeUsage();
        return out;
      }),

    /** A call refused before it could run (unknown tool, arguments that fail the schema): recorded, never sent. */
    refuse: (call: ToolCallRequest, integrationId: string | null, outcome: CallOutcome) =>
      commit(() => {
        const row = insertCall(call, { status: 'running', integrationId, readonly: false });
        const out = finish(row, outcome);
        writeToolMessage(call, outcome);
        return out;
      }),

    /** Parks the turn on an approval: the gated call, the approval row and the suspension commit together. */
    suspend: (call: ToolCallRequest, gate: { integrationId: string; readonly: boolean; routing: 'user' | 'policy'; kind: 'turn' | 'confirmation'; grantExpiresAt: number | null }) => {
      const approvalId = newId();
      const toolCallId = newId();
      return move(
        { type: 'SUSPEND', now: clock.now(), approvalId, toolName: call.toolName, args: call.args, grantExpiresAt: gate.grantExpiresAt },
        {
          facts: { toolCallId },
          before: () => {
            insertCall(call, { id: toolCallId, status: 'awaiting_approval', integrationId: gate.integrationId, readonly: gate.readonly, approvalId });
            repos.approvals.insert({
              id: approvalId,
              orgId: ctx.session.orgId,
              sessionId,
              executionId,
              toolCallId,
              kind: gate.kind,
              routing: gate.routing,
              tool: call.toolName,
              args: call.args ?? {},
              initiatedBy: ctx.execution.createdBy,
              createdAt: clock.now(),
            });
            storeUsage();
            return [];
          },
        },
      );
    },
  };
}
