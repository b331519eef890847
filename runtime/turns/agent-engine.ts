// The agent engine behind the dispatcher: admits starts on published agents, queues turns, and runs them.
import { AppError, notFound, validation } from '../errors.js';
import { newId } from '../ids.js';
import type { SessionEngine } from './engine.js';
import { readRevision } from './agent-revision.js';
import type { TurnDeps } from './turn-deps.js';
import { createTurnMover } from './turn-mover.js';
import { runAgentTurn } from './turn-runner.js';
import { SettledBeforeStart } from './settled-before-start.js';

export function createAgentEngine(deps: TurnDeps): SessionEngine {
  const { repos } = deps.store;
  return {
    async admit(request, automation) {
      // Rule 1: an Agent (a Flow id is not an agent here) with a published revision.
      if (automation.kind !== 'agent' || automation.publishedRevision === null) throw notFound();
      const revision = await readRevision(repos.automations, automation.id, automation.publishedRevision);
      if (revision === undefined) throw notFound();
      if (typeof request.message !== 'string' || request.message.trim() === '') throw validation('A message is required to start an agent turn.');
      return { revision: revision.revision, bindings: revision.belt };
    },

    async writeStart(tx, start) {
      const { request } = start;
      await tx.repos.sessions.insertMessage({
        id: newId(),
        sessionId: start.sessionId,
        executionId: start.executionId,
        role: 'user',
        // Trigger and schedule messages have no person behind them: no author (spec "Session and execution").
        authorUserId: request.actorUserId,
        content: request.message!.trim(),
        payload: null,
        createdAt: start.now,
      });
      // A session being opened has no subscriber yet (its id is in this very answer) and its snapshot carries the
      // message: the signal is for messages appended to a live session only (one row less per opened session).
      if (start.entry === 'open') return [];
      return deps.bus.append(tx, start.sessionId, { type: 'session.changed', change: 'message_added' });
    },

    async run(execution, signal) {
      try {
        await runAgentTurn(deps, execution, signal);
      } catch (error) {
        if (signal.aborted || error instanceof SettledBeforeStart) return;
        deps.logger.error({ executionId: execution.executionId, err: error instanceof Error ? error.message : String(error) }, 'agent turn failed unexpectedly');
        await failStuckTurn(deps, execution.sessionId, execution.executionId);
      }
    },
  };
}

/** Last resort after an unexpected error: record the turn as failed so the session's queue can move on. */
async function failStuckTurn(deps: TurnDeps, sessionId: string, executionId: string): Promise<void> {
  const mover = createTurnMover(deps, { sessionId, executionId });
  const status = (await deps.store.repos.executions.execution(executionId))?.status;
  try {
    if (status === 'queued' || status === 'resume_queued') await mover.move({ type: 'START', now: deps.clock.now() });
    if (status !== 'suspended') await mover.move({ type: 'FAIL', now: deps.clock.now(), code: 'TURN_FAILED', message: 'The turn failed unexpectedly.' });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
  }
}
