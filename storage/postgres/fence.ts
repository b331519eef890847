// The lease a unit of work is written under: captured at submit from the async context, checked first in its transaction.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Fence {
  readonly resource: string;
  readonly token: number;
  /**
   * False once the work that ran under the lease returned: a timer or callback created inside it that fires later
   * inherits the context, but what it writes is no longer the owner's run and is not fenced.
   */
  active: boolean;
}

const context = new AsyncLocalStorage<Fence>();

/** Runs `work` so that units it submits (directly or through anything it awaits) are fenced by `fence`. */
export function runFenced<T>(fence: Fence, work: () => Promise<T>): Promise<T> {
  return context.run(fence, work);
}

/** The fence of the calling context, if a live one is set (the unit writer calls this at submit). */
export function currentFence(): Fence | undefined {
  const fence = context.getStore();
  return fence?.active === true ? fence : undefined;
}

/**
 * Runs `work` with no fence: for the writer's own machinery. A setImmediate or promise continuation keeps the context
 * it was created in, so without this a batch woken by a fenced submit would run, and publish its outbox, inside that
 * unit's lease context, and whatever an outbox subscriber then submits (a webhook run-settlement check after
 * `turn.completed`) would be fenced by a lease it never held and refused once that lease is released.
 */
export function outsideFence<T>(work: () => T): T {
  return context.exit(work);
}
