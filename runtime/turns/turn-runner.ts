// The turn loop: answer the current step's calls, check budgets, take the next model step, until it completes or parks.
import { AppError } from '../errors.js';
import { isModelError, type KnowledgeSnippet } from '../models/index.js';
import type { QueuedExecution } from './engine.js';
import { rebuildConversation } from './conversation.js';
import { runModelStep } from './model-step.js';
import { handleCall, type CallRun } from './tool-call-handler.js';
import { budgetBreach, clockDeadline } from './turn-budget.js';
import { loadTurnContext } from './turn-context.js';
import type { TurnDeps } from './turn-deps.js';
import { createTurnMover } from './turn-mover.js';
import { createTurnRecorder } from './turn-recorder.js';

/** Why a turn that could not even start failed: a code for turn.completed and the execution row. */
function startFailure(error: unknown): { code: string; message: string } {
  if (isModelError(error)) return { code: error.reason, message: error.message };
  if (error instanceof AppError && typeof error.details?.code === 'string') return { code: error.details.code, message: error.message };
  return { code: 'TURN_FAILED', message: 'The turn could not start.' };
}

/**
 * Runs one execution from where its rows say it is. `shutdown` aborting means the process is stopping: the loop
 * returns without recording anything, so the next boot resumes the same state.
 */
export async function runAgentTurn(deps: TurnDeps, queued: QueuedExecution, shutdown: AbortSignal): Promise<void> {
  const { repos } = deps.store;
  const row = await repos.executions.execution(queued.executionId);
  if (row === undefined) return;
  const mover = createTurnMover(deps, { sessionId: queued.sessionId, executionId: queued.executionId });
  if (row.status === 'queued' || row.status === 'resume_queued') await mover.move({ type: 'START', now: deps.clock.now() });
  else if (row.status !== 'running') return;

  let ctx;
  try {
    ctx = await loadTurnContext(deps, queued);
  } catch (error) {
    const { code, message } = startFailure(error);
    await mover.move({ type: 'FAIL', now: deps.clock.now(), code, message }, { facts: { errorMessage: message } });
    return;
  }
  const rec = createTurnRecorder(deps, ctx);
  const { limits } = deps;
  const deadline = clockDeadline(deps.clock, deps.clock.now() + Math.max(0, limits.maxWallMs - ctx.execution.runMs));
  const signal = AbortSignal.any([shutdown, deadline.signal]);
  const run: CallRun = { deps, ctx, rec, signal, shutdown };
  try {
    let knowledge: readonly KnowledgeSnippet[] | null = null;
    for (;;) {
      await deps.pacer?.pace();
      if (shutdown.aborted) return;
      // The execution's id and position are all the rebuild needs, and neither changes during a run.
      const conversation = rebuildConversation(await repos.sessions.conversation(queued.sessionId), ctx.execution);
      if (conversation.pending.length > 0) {
        if (!(await answerCalls(run, conversation.pending))) return;
        continue;
      }
      const before = budgetBreach(limits, ctx.meter.usage(), 'before-step');
      if (before !== null) return void (await rec.failBudget(before));
      knowledge ??= await selectKnowledge(deps, ctx.scope, conversation.userText);
      let step;
      try {
        step = await runModelStep(deps, ctx, { messages: conversation.messages, knowledge, tokensLeft: limits.maxTokens - ctx.meter.usage().tokens, signal });
      } catch (error) {
        if (shutdown.aborted) return;
        if (deadline.signal.aborted) return void (await rec.failBudget({ budget: 'wall_time', limit: limits.maxWallMs, used: ctx.meter.usage().ms }));
        const { code, message } = isModelError(error) ? { code: error.reason, message: error.message } : { code: 'MODEL_FAILED', message: 'The model step failed.' };
        return void (await rec.fail(code, message));
      }
      if (shutdown.aborted) return;
      const after = budgetBreach(limits, { ...ctx.meter.usage(), tokens: ctx.meter.usage().tokens + step.tokens }, 'after-step');
      if (after !== null) return void (await rec.failBudget(after, step));
      if (step.toolCalls.length === 0) return void (await rec.complete(step));
      // The step is written with its first call's unit (one unit per model step), so its calls are taken from memory.
      rec.recordStep(step);
      if (!(await answerCalls(run, step.toolCalls))) return;
    }
  } finally {
    deadline.dispose();
  }
}

/** Takes each call to its outcome in order; false when the turn parked, stopped or broke its wall-time budget. */
async function answerCalls(run: CallRun, calls: Parameters<typeof handleCall>[1][]): Promise<boolean> {
  for (const call of calls) {
    if ((await handleCall(run, call)) !== 'answered') return false;
    const wall = budgetBreach(run.deps.limits, { ...run.ctx.meter.usage(), steps: 0, tokens: 0 }, 'after-step');
    if (wall !== null) {
      await run.rec.failBudget(wall);
      return false;
    }
  }
  return true;
}

/** Knowledge for the system prompt, chosen once per run from the turn's message; a failing source adds none. */
async function selectKnowledge(deps: TurnDeps, scope: CallRun['ctx']['scope'], query: string): Promise<readonly KnowledgeSnippet[]> {
  const source = deps.providers.knowledge();
  if (source === null) return [];
  try {
    return await source.select(scope, query);
  } catch (error) {
    deps.logger.warn({ executionId: scope.executionId, err: error instanceof Error ? error.name : typeof error }, 'knowledge selection failed; the turn runs without it');
    return [];
  }
}
