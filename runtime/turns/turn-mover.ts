// Machine steps of one turn with their rows: the unit of work the registry commits, events published after it.
import type { SessionTurnEvent } from '../../machines/session-turn.machine.js';
import { AppError } from '../errors.js';
import type { SessionEventEnvelope } from '../events/index.js';
import { applyTurnStep, type TurnStep, type TurnStepFacts } from './turn-effects.js';
import type { TurnDeps } from './turn-deps.js';

export type TurnMover = ReturnType<typeof createTurnMover>;

/** Machine steps and plain units of work for one execution; needs nothing loaded beyond the ids. */
export function createTurnMover(deps: TurnDeps, ids: { sessionId: string; executionId: string }) {
  const { bus } = deps;
  const effectsDeps = { repos: deps.store.repos, bus, grants: deps.grants, clock: deps.clock, deadlines: deps.deadlines };

  async function commit(work: () => SessionEventEnvelope[]): Promise<void> {
    bus.publish(await deps.store.writer.submit(work));
  }

  /** A machine step with its rows; refused (nothing written) when the machine does not take the event. */
  async function move(event: SessionTurnEvent, facts: TurnStepFacts = {}, before?: (step: TurnStep) => SessionEventEnvelope[]): Promise<void> {
    const envelopes = await deps.turns.transition(ids.executionId, event, (step) => {
      if (!step.changed) throw new AppError('CONFLICT', `Turn ${ids.executionId} does not take ${event.type} now.`);
      return [...(before?.(step) ?? []), ...applyTurnStep(effectsDeps, ids.sessionId, step, facts)];
    });
    bus.publish(envelopes);
  }

  return { commit, move };
}
