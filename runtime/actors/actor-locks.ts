// Per-actor-id serialization: the steps of one actor run one after another; different actors run freely.

/**
 * Each id maps to the promise that settles when its latest queued task finishes. A task over several ids
 * waits for all their tails and becomes the tail of each; tails are taken synchronously in call order, so
 * waits only point to earlier tasks and cannot form a cycle (no deadlock, no lock ordering needed).
 */
export function createActorLocks() {
  const tails = new Map<string, Promise<void>>();

  function run<T>(ids: readonly string[], task: () => T | Promise<T>): Promise<T> {
    const waits: Promise<void>[] = [];
    for (const id of ids) {
      const tail = tails.get(id);
      if (tail !== undefined) waits.push(tail);
    }
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    for (const id of ids) tails.set(id, mine);
    const started = waits.length === 0 ? Promise.resolve() : Promise.all(waits);
    return started.then(task).finally(() => {
      release();
      for (const id of ids) if (tails.get(id) === mine) tails.delete(id);
    });
  }

  return {
    run,
    /** True while a task for `id` is queued or running (passivation must not drop such an actor). */
    busy: (id: string): boolean => tails.has(id),
  };
}

export type ActorLocks = ReturnType<typeof createActorLocks>;
