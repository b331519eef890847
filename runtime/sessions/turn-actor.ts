// The session-turn actor kind: its registration with the supervised registry and its first snapshot row.
import {
  MACHINE_VERSION,
  sessionTurnMachine,
  type SessionTurnEvent,
} from '../../machines/session-turn.machine.js';
import type { SnapshotsRepo } from '../../storage/repos/snapshots.repo.js';
import type { ActorFailure, ActorKindHandle, ActorRegistry } from '../actors/index.js';
import { createStepper } from '../actors/snapshot-codec.js';
import { AppError } from '../errors.js';

export const TURN_ACTOR_KIND = 'session-turn';

export type TurnActors = ActorKindHandle<typeof sessionTurnMachine>;

export function registerTurnActors(registry: ActorRegistry, onFailure: (failure: ActorFailure) => void | Promise<void>): TurnActors {
  return registry.register(TURN_ACTOR_KIND, { machine: sessionTurnMachine, version: MACHINE_VERSION, onFailure });
}

/*
 * One inert stepper for every new turn (the registry's fast path): xstate's `initialTransition`/`transition` build a
 * throwaway actor per call, ~0.35 ms each here, which made this step the largest single cost of opening a session
 * and of every fire subscriber. The step is the same pure computation; emitted actions are dropped either way.
 */
const stepper = createStepper(sessionTurnMachine);

/**
 * Writes a new turn's snapshot (idle -> OPEN/MESSAGE -> queued) inside the caller's unit of work. The registry's
 * own spawn commits in a unit of its own; SessionStarter.write() must share the caller's (e.g. a trigger firing's),
 * so the step is computed here with the pure stepper and the registry rehydrates the row on first use.
 */
export function writeQueuedTurn(snapshots: SnapshotsRepo, ids: { executionId: string; sessionId: string }, entry: 'open' | 'message', now: number): void {
  const event: SessionTurnEvent = { type: entry === 'open' ? 'OPEN' : 'MESSAGE', now, valid: true, permitted: true };
  const queued = stepper.spawn(ids, event).next;
  if (!queued.matches('queued')) throw new AppError('INTERNAL', 'The session-turn machine did not queue a new turn.');
  const inserted = snapshots.insert({
    actor_id: ids.executionId,
    machine: TURN_ACTOR_KIND,
    machine_version: MACHINE_VERSION,
    status: 'active',
    snapshot: JSON.stringify(sessionTurnMachine.getPersistedSnapshot(queued)),
    updated_at: now,
  });
  if (!inserted) throw new AppError('CONFLICT', `Turn ${ids.executionId} already exists.`);
}
