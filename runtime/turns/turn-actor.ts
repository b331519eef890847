// The session-turn actor kind: its registration with the actor registry; a queued turn is its execution row.
import {
  MACHINE_VERSION,
  sessionTurnMachine,
  type SessionTurnEvent,
} from '../../machines/session-turn.machine.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { ActorFailure, ActorKindHandle, ActorRegistry } from '../actors/index.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus } from '../events/index.js';
import type { CallerGrants } from './caller-grants.js';
import type { SessionDispatcher } from './dispatcher.js';

export const TURN_ACTOR_KIND = 'session-turn';

export type TurnActors = ActorKindHandle<typeof sessionTurnMachine>;

/**
 * A new turn writes no snapshot row (issue 12: fewer rows per accepted fire or message): its first state,
 * idle -> OPEN/MESSAGE -> queued, is implied by its execution row while that row says `queued`, and is computed by
 * the registry on first use; the turn's first committed step (START) writes the row.
 */
export function registerTurnActors(registry: ActorRegistry, executions: Pick<PortRepositories['executions'], 'execution'>, onFailure: (failure: ActorFailure) => void | Promise<void>): TurnActors {
  return registry.register(TURN_ACTOR_KIND, {
    machine: sessionTurnMachine,
    version: MACHINE_VERSION,
    onFailure,
    async implicit(executionId) {
      const execution = await executions.execution(executionId);
      if (execution === undefined || execution.status !== 'queued') return undefined;
      const event: SessionTurnEvent = { type: execution.entry === 'open' ? 'OPEN' : 'MESSAGE', now: execution.createdAt, valid: true, permitted: true };
      return { input: { executionId, sessionId: execution.sessionId }, event };
    },
  });
}


export interface UnrestorableTurnDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  bus: SessionEventBus;
  grants: Pick<CallerGrants, 'discard'>;
  registry: Pick<ActorRegistry, 'retire'>;
  dispatcher: Pick<SessionDispatcher, 'dispatch'>;
}

/**
 * The registry gave up on a turn (its snapshot cannot be restored, or it keeps failing): there is no machine to
 * step, so its row is retired and the execution settled failed directly, and the session's queue moves on.
 */
export async function failUnrestorableTurn(deps: UnrestorableTurnDeps, failure: ActorFailure): Promise<void> {
  const { repos } = deps.store;
  const execution = await repos.executions.execution(failure.id);
  if (execution === undefined || execution.settledAt !== null) return;
  await deps.store.writer.submit(async (tx) => {
    await deps.registry.retire(tx.repos, TURN_ACTOR_KIND, failure.id);
    await tx.repos.executions.settle(failure.id, 'failed', deps.clock.now(), 'TURN_FAILED', 'The turn could not be continued.');
    await deps.grants.discard(tx.repos, failure.id);
    return deps.bus.append(tx, execution.sessionId, { type: 'turn.completed', executionId: failure.id, outcome: 'failed', errorCode: 'TURN_FAILED' });
  });
  deps.dispatcher.dispatch(execution.sessionId);
}
