// The storage port the runtime is written against: repositories that may answer now or later, and the unit writer.
/*
 * SQLite's repositories answer synchronously and PostgreSQL's return promises; `runtime/` awaits every call, so the
 * same code runs on both and SQLite pays a microtask per await, no wrapper. The SQLite repositories' types stay the
 * reference (a driver whose functions drift from them fails to compile). Decision "The runtime speaks the storage
 * port (issue 16 item 1)".
 */
import type { ReadCache } from '../read-cache.js';
import type { SessionSignals } from './session-signals.js';
import type { Repositories } from '../repos/index.js';
import type { UnitWriter } from './unit.js';

/** A value now (SQLite) or later (PostgreSQL): always `await` it. */
export type Awaitable<T> = T | Promise<T>;

/** A repository whose functions take the SQLite repository's arguments and answer its result, now or later. */
export type PortRepo<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Awaitable<Awaited<T>> : never;
};

export type PortRepositories = { [K in keyof Repositories]: PortRepo<Repositories[K]> };

/** What `runtime/` may use of storage: nothing here says which engine runs. */
export interface Storage {
  /**
   * Reads outside a unit of work (and single-statement writes that need no unit). Inside a unit use `tx.repos`:
   * on PostgreSQL only those run in the unit's transaction.
   */
  readonly repos: PortRepositories;
  /** Commits units of work atomically, in batches; a unit's `tx.repos` run inside its transaction. */
  readonly writer: UnitWriter<PortRepositories>;
  /** Memoizes a read until a write to a table it depends on (storage/read-cache.ts). */
  readonly cache: Pick<ReadCache, 'cached' | 'generation'>;
  /** Committed session events announced across nodes; absent where one process is the only writer (SQLite). */
  readonly signals?: SessionSignals;
}
