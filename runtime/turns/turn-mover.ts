// The one way to move a turn: a session-turn machine step with its rows in one unit of work, its unit's outbox publishes the events.
/*
 * Every caller that changes a turn — the turn loop, an approval decision, a cancel, the approval window's expiry —
 * goes through `move`, so the step's facts (execution row, grant deletion, approval window, stream events) are
 * written by turn-effects alone, and nothing is written when the machine refuses the event.
 */
import type { SessionTurnEvent } from '../../machines/session-turn.machine.js';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import type { StepUnit } from '../actors/index.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';
import type { TurnActors } from './turn-actor.js';
import { applyTurnStep, type TurnStep, type TurnStepFacts } from './turn-effects.js';

export interface TurnMoverDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  bus: SessionEventBus;
  grants: CallerGrants;
  clock: Clock;
  /** The approval window's timer (absent in some unit tests). */
  deadlines?: ApprovalDeadlines;
  turns: TurnActors;
}

export interface MoveOptions {
  /** Facts the step's events name that the machine does not carry (gated call id, failure message). */
  facts?: TurnStepFacts;
  /** The caller's own rows in the same unit, written before the step's (a decision, closed open work). */
  before?: (step: TurnStep, tx: StepUnit) => Promise<SessionEventEnvelope[]>;
  /** Work of the same unit whether or not the machine takes the event (a timer delivery's mark). */
  always?: (tx: StepUnit) => Promise<void>;
  /** When the machine does not take the event: the error to throw (default CONFLICT), or `null` to write nothing. */
  refused?: (() => Error) | null;
}

export type TurnMover = ReturnType<typeof createTurnMover>;

/** Machine steps and plain units of work for one execution; needs nothing loaded beyond the ids. */
export function createTurnMover(deps: TurnMoverDeps, ids: { sessionId: string; executionId: string }) {
  const { bus } = deps;
  const effectsDeps = { bus, grants: deps.grants, clock: deps.clock, deadlines: deps.deadlines };

  async function commit(work: (tx: StepUnit) => Promise<SessionEventEnvelope[]>): Promise<void> {
    await deps.store.writer.submit(work);
  }

  /** A machine step with its rows; resolves whether the machine took the event. */
  async function move(event: SessionTurnEvent, options: MoveOptions = {}): Promise<boolean> {
    let taken = false;
    await deps.turns.transition(ids.executionId, event, async (step, tx) => {
      await options.always?.(tx);
      if (!step.changed) {
        if (options.refused === null) return [];
        throw options.refused?.() ?? new AppError('CONFLICT', `Turn ${ids.executionId} does not take ${event.type} now.`);
      }
      taken = true;
      const before = (await options.before?.(step, tx)) ?? [];
      return [...before, ...(await applyTurnStep(tx, effectsDeps, ids.sessionId, step, options.facts))];
    });
    return taken;
  }

  return { commit, move };
}
