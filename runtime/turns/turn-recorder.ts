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
import type { StepUnit } from '../actors/index.js';

/** One model step as it is stored: the assistant message id its deltas carried, its text and its calls. */
export interface RecordedStep {
  readonly messageId: string;
  readonly text: string;
  readonly toolCalls: AssistantPayload['toolCalls'];
  readonly tokens: number;
}

export type TurnRecorder = ReturnType<typeof createTurnRecorder>;
export function createTurnRecorder(deps: TurnDeps, ctx: TurnContext) {
  const { bus, clock } = deps;
  const sessionId = ctx.session.id;
  const executionId = ctx.execution.id;
  const mover = createTurnMover(deps, { sessionId, executionId });

  // A model step that issued calls is written with the unit that handles its first call (issue 12 item 5: one
  // unit per model step): nothing external happens in between, so a crash before it simply repeats the step.
  let deferred: ((tx: StepUnit) => Promise<void>) | null = null;
  const takeDeferred = () => {
    const work = deferred;
    deferred = null;
    return work;
  };
  async function withDeferred<T>(run: (write: (tx: StepUnit) => Promise<void>) => Promise<T>): Promise<T> {
    const work = takeDeferred();
    try {
      return await run(async (tx) => work?.(tx));
    } catch (error) {
      deferred ??= work;
      throw error;
    }
  }
  const commit = (work: (tx: StepUnit) => Promise<SessionEventEnvelope[]>) =>
    withDeferred((write) =>
      mover.commit(async (tx) => {
        await write(tx);
        return work(tx);
      }),
    );
  const move = (event: Parameters<TurnMover['move']>[0], options: MoveOptions = {}) =>
    withDeferred((write) =>
      mover.move(event, {
        ...options,
        before: async (step, tx) => {
          await write(tx);
          return (await options.before?.(step, tx)) ?? [];
        },
      }),
    );

  const append = (tx: StepUnit, event: PersistedSessionEvent): Promise<SessionEventEnvelope[]> => bus.append(tx, sessionId, event);

  async function writeStep(tx: StepUnit, step: RecordedStep): Promise<void> {
    const payload: AssistantPayload = { toolCalls: step.toolCalls };
    await tx.repos.sessions.insertMessage({
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

  async function storeUsage(tx: StepUnit, step: { steps?: number; tokens?: number } = {}): Promise<void> {
    await tx.repos.executions.addUsage(executionId, ctx.meter.take(step), clock.now());
  }

  async function writeToolMessage(tx: StepUnit, call: Pick<ToolCallRequest, 'toolCallId' | 'toolName'>, outcome: CallOutcome): Promise<void> {
    const payload: ToolPayload = { toolCallId: call.toolCallId, toolName: call.toolName, result: modelResult(outcome.result) };
    await tx.repos.sessions.insertMessage({
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

  async function insertCall(tx: StepUnit, call: ToolCallRequest, fields: Pick<ToolCall, 'status' | 'integrationId' | 'readonly'> & { approvalId?: string; id?: string }): Promise<ToolCall> {
    return tx.repos.executions.insertToolCall({
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

  function started(tx: StepUnit, row: ToolCall, edited: boolean): Promise<SessionEventEnvelope[]> {
    return append(tx, { type: 'tool_call.started', executionId, toolCallId: row.id, toolName: row.tool, step: row.step, edited });
  }

  async function finish(tx: StepUnit, row: ToolCall, outcome: CallOutcome): Promise<SessionEventEnvelope[]> {
    const now = clock.now();
    const { result } = outcome;
    const out: SessionEventEnvelope[] = [];
    await tx.repos.executions.finishToolCall(
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
      out.push(...(await append(tx, { type: 'caller_credential.failed', executionId, toolCallId: row.id, ...outcome.credentialFailure })));
    }
    for (const file of result.ok && 'files' in result ? result.files : []) {
      const fileId = newId();
      await tx.repos.sessions.insertFile({ id: fileId, sessionId, executionId, name: file.name, mediaType: file.mediaType, content: file.content, createdAt: now });
      out.push(...(await append(tx, { type: 'file.added', executionId, fileId, name: file.name, mediaType: file.mediaType, sizeBytes: file.content.byteLength })));
    }
    out.push(
      ...(await append(tx, {
        type: 'tool_call.finished',
        executionId,
        toolCallId: row.id,
        toolName: row.tool,
        status: result.ok ? 'succeeded' : 'failed',
        errorCode: result.ok ? null : result.code,
        identity: outcome.identity,
        durationMs: outcome.durationMs,
      })),
    );
    return out;
  }

  return {
    commit,
    move,

    /** A step that issued tool calls: its assistant message and usage, written with the next unit of this turn. */
    recordStep(step: RecordedStep): void {
      deferred = async (tx) => {
        await writeStep(tx, step);
        await storeUsage(tx, { steps: 1, tokens: step.tokens });
      };
    },

    /** The final step (no tool calls): the answer and the completion commit together. */
    complete: (step: RecordedStep) =>
      move({ type: 'COMPLETE', now: clock.now() }, {
        before: async (_step, tx) => {
          await writeStep(tx, step);
          await storeUsage(tx, { steps: 1, tokens: step.tokens });
          return [];
        },
      }),

    fail: (code: string, message: string) =>
      move({ type: 'FAIL', now: clock.now(), code, message }, {
        facts: { errorMessage: message },
        before: async (_step, tx) => {
          await storeUsage(tx);
          return [];
        },
      }),

    /** budget.failed, then the failed turn; a step that broke the token budget is kept in the log. */
    failBudget: (breach: BudgetBreach, step?: RecordedStep) =>
      move(
        { type: 'FAIL', now: clock.now(), code: 'BUDGET_EXCEEDED', message: `The turn's ${breach.budget} budget (${breach.limit}) is used up.` },
        {
          facts: { errorMessage: `The turn's ${breach.budget} budget (${breach.limit}) is used up.` },
          before: async (_step, tx) => {
            if (step) await writeStep(tx, step);
            await storeUsage(tx, step ? { steps: 1, tokens: step.tokens } : {});
            return append(tx, { type: 'budget.failed', executionId, budget: breach.budget, limit: breach.limit, used: breach.budget === 'wall_time' ? ctx.meter.usage().ms : breach.used });
          },
        },
      ),

    /** A new call about to run: row `running` and tool_call.started commit before the upstream is contacted. */
    openCall: async (call: ToolCallRequest, integrationId: string, readonly: boolean): Promise<ToolCall> => {
      let row!: ToolCall;
      await commit(async (tx) => {
        row = await insertCall(tx, call, { status: 'running', integrationId, readonly });
        return started(tx, row, false);
      });
      return row;
    },

    /** An approved (or restarted readonly) call starting: the arguments it runs with, edited or not. */
    startCall: async (row: ToolCall, args: Record<string, unknown>, edited: boolean): Promise<ToolCall> => {
      await commit(async (tx) => {
        await tx.repos.executions.startToolCall(row.id, args, edited, null);
        return started(tx, row, edited);
      });
      return { ...row, status: 'running', args, edited };
    },

    /** The call's outcome, its files, and the tool message the model reads next step. */
    answer: (row: ToolCall, call: Pick<ToolCallRequest, 'toolCallId' | 'toolName'>, outcome: CallOutcome) =>
      commit(async (tx) => {
        const out = await finish(tx, row, outcome);
        await writeToolMessage(tx, call, outcome);
        await storeUsage(tx);
        return out;
      }),

    /** A call refused before it could run (unknown tool, arguments that fail the schema): recorded, never sent. */
    refuse: (call: ToolCallRequest, integrationId: string | null, outcome: CallOutcome) =>
      commit(async (tx) => {
        const row = await insertCall(tx, call, { status: 'running', integrationId, readonly: false });
        const out = await finish(tx, row, outcome);
        await writeToolMessage(tx, call, outcome);
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
          before: async (_step, tx) => {
            await insertCall(tx, call, { id: toolCallId, status: 'awaiting_approval', integrationId: gate.integrationId, readonly: gate.readonly, approvalId });
            await tx.repos.approvals.insert({
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
            await storeUsage(tx);
            return [];
          },
        },
      );
    },
  };
}
