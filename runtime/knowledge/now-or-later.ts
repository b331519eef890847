// Owns chaining a storage answer that may come now (SQLite) or later (PostgreSQL) without adding a microtask when it comes now.
import type { Awaitable } from '../../storage/port/storage.js';

/**
 * `next(value)` at once when `value` is plain, after it resolves when it is a promise. The knowledge search keeps
 * its cache hits synchronous this way (decision "Knowledge lookups cached"): a turn awaits only what is real I/O.
 */
export function nowOrLater<T, U>(value: Awaitable<T>, next: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value as T);
}
