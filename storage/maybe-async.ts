// Code that stays synchronous while every step is, and becomes a promise only from the first step that is not.
/*
 * The group-commit batch must not add a promise or a microtask for units that return plain values (the hot path),
 * yet continue correctly after a unit that returns a promise: these two helpers carry that split.
 */

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';

/** Calls `step` until it returns false: synchronous while every step is, a promise from the first step that is not. */
export function loop(step: () => boolean | PromiseLike<boolean>): void | Promise<void> {
  for (;;) {
    const more = step();
    if (isThenable(more)) return Promise.resolve(more).then((again) => (again ? loop(step) : undefined));
    if (!more) return;
  }
}
