// The session-turn actor kind: its registration with the actor registry; a queued turn is its execution row.
import {
  MACHINE_VERSION,
  sessionTurnMachine,
  type SessionTurnEvent,
} from '../../machines/session-turn.machine.js';
import type { ExecutionsRepo } from '../../storage/repos/executions.repo.js';
import type { ActorFailure, ActorKindHandle, ActorRegistry } from '../actors/index.js';

export const TURN_ACTOR_KIND = 'session-turn';

export type TurnActors = ActorKindHandle<typeof sessionTurnMachine>;

/**
 * A new turn writes no snapshot row (issue 12: fewer rows per accepted fire or message): its first state,
 * idle -> OPEN/MESSAGE -> queued, is implied by its execution row while that row says `queued`, and is computed by
 * the registry on first use; the turn's first committed step (START) writes the row.
 */
export function registerTurnActors(registry: ActorRegistry, executions: Pick<ExecutionsRepo, 'execution'>, onFailure: (failure: ActorFailure) => void | Promise<void>): TurnActors {
  return registry.register(TURN_ACTOR_KIND, {
    machine: sessionTurnMachine,
    version: MACHINE_VERSION,
    onFailure,
    implicit(executionId) {
      const execution = executions.execution(executionId);
      if (execution === undefined || execution.status !== 'queued') return undefined;
      const event: SessionTurnEvent = { type: execution.entry === 'open' ? 'OPEN' : 'MESSAGE', now: execution.created_at, valid: true, permitted: true };
      return { input: { executionId, sessionId: execution.session_id }, event };
    },
  });
}


