// A start that lost to a cancel: the execution settled (cancelled on another node) before its owner could start it.
/*
 * With N nodes a cancel of an execution queued behind another one settles it without taking the session's lease
 * (execution-cancel.ts), while the owner may be about to start it. The owner's start marks the row running only if
 * it has not settled; when it has, the start's unit is refused whole (no turn.started, no snapshot) and the engine
 * returns quietly: the cancel won, the execution never ran a step. Decision "A cancel racing a queued execution".
 */
import type { PortRepositories } from '../../storage/port/storage.js';

export class SettledBeforeStart extends Error {
  constructor(readonly executionId: string) {
    super(`Execution ${executionId} settled before it started.`);
    this.name = 'SettledBeforeStart';
  }
}

/** Marks the execution running in the caller's unit, or refuses the unit when it has settled meanwhile. */
export async function markStarted(executions: Pick<PortRepositories['executions'], 'markStarted'>, executionId: string, now: number): Promise<void> {
  if (!(await executions.markStarted(executionId, now))) throw new SettledBeforeStart(executionId);
}
