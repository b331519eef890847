// Machine steps of one turn with their rows: the unit of work the registry commits; its outbox publishes the events.
import type { SessionTurnEvent } from '../../machines/session-turn.machine.js';
import { AppError } from '../errors.js';
import type { SessionEventEnvelope } from '../events/index.js';
import { applyTurnStep, type TurnStep, type TurnStepFacts } from '../sessions/turn-effects.js';
import type { TurnDeps } from './turn-deps.js';

export type TurnMover = ReturnType<typeof createTurnMover>;

/** Machine steps and plain units of work for one execution; needs nothing loaded beyond the ids. */
export function createTurnMover(deps: TurnDeps, ids: { sessionId: string; executionId: string }) {
  const effectsDeps = { repos: deps.store.repos, bus: deps.bus, grants: deps.grants, clock: deps.clock, deadlines: deps.deadlines };

  async function commit(work: () => SessionEventEnvelope[]): Promise<void> {
    await deps.store.writer.submit(work);
  }

  /** A machine step with its rows; refused (nothing written) when the machine does not take the event. */
  async function move(event: SessionTurnEvent, facts: TurnStepFacts = {}, before?: (step: TurnStep) => SessionEventEnvelope[]): Promise<void> {
    await deps.turns.transition(ids.executionId, event, (step) => {
      if (!step.changed) throw new AppError('CONFLICT', `Turn ${ids.executionId} does not take ${event.type} now.`);
      return [...(before?.(step) ?? []), ...applyTurnStep(effectsDeps, ids.sessionId, step, facts)];
    });
  }

  return { commit, move };
}
