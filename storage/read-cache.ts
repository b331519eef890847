// Caches the hot configuration reads (key check, fire planning, knowledge) and drops them all on any write to the tables they read.
/*
 * Every API request authenticates its key and every fire reads its trigger, subscribers, automations, entitlements
 * and the caller's domain role: rows that change only on configuration writes (authoring publish, manifest apply,
 * entitlements, key revocation, member changes, trigger edits / pause / delete). Rather than naming each writer,
 * the connection handed to the repositories wraps every statement that writes one of WATCHED (found from its SQL
 * when prepared): running it bumps a generation, and a cached value of an older generation is never returned. So
 * a revoked key or a disabled entitlement takes effect on the very next request, whichever code path wrote it,
 * including ON DELETE CASCADE from a watched parent (a deleted domain or organization is itself a watched write).
 * A value read inside a transaction is cached only when no watched write has run since the last read seen outside
 * one: such a value is committed state, and a watched write of that transaction would have bumped the generation.
 * (Async units keep the group-commit transaction open across microtasks, so a turn's reads outside any unit often
 * run while one is open: refusing them all left the knowledge search uncached under load, docs/decisions.md.)
 * Entries filled before a transaction are served inside it until a watched write of its own clears them.
 */
import type { SqliteDatabase } from './database.js';

/** Tables whose rows the cached reads return or depend on (parents included, for their cascades). */
const WATCHED: ReadonlySet<string> = new Set([
  'organizations',
  'users',
  'org_memberships',
  'domains',
  'domain_memberships',
  'api_keys',
  'automations',
  'triggers',
  'subscriptions',
  'entitlement_overrides',
  'partners',
  // The integrations an organization's turns may call (runtime/turns/turn-tools.ts catalog cache).
  'integrations',
  // The organization's connections a tool call runs as (runtime/turns/call-identity.ts; their material stays sealed).
  'connections',
  // Whether an organization has an active endpoint, asked after every fire (runtime/webhooks/run-settlement.ts).
  'webhook_endpoints',
  // Knowledge an agent's turn reads (its selection, the modules it names, published articles and their index).
  'knowledge_selections',
  'knowledge_modules',
  'knowledge_bases',
  'articles',
  'article_fts_rows',
  'articles_fts',
  'module_articles',
]);

const WRITE_TARGET = /^\s*(?:WITH\b[\s\S]*?\)\s*)?(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+["`]?(\w+)/i;
/** Entries per cached read before it starts over (a bound on memory, not an eviction policy). */
const MAX_ENTRIES = 10_000;

export interface CachedOptions {
  /** A lower bound than MAX_ENTRIES, for reads whose values are large. */
  readonly maxEntries?: number;
}

export interface ReadCache {
  /** The connection the repositories prepare on: writes to watched tables bump the generation. */
  readonly db: SqliteDatabase;
  /** Memoizes a read by its key; values are frozen (shared between callers). */
  cached<A extends unknown[], R>(read: (...args: A) => R, key: (...args: A) => string, options?: CachedOptions): (...args: A) => R;
  /** Bumped by every watched write (tests). */
  generation(): number;
  /** Drops every cached value: another connection to the same file wrote a watched table (execution thread). */
  invalidate(): void;
  /**
   * Tells `listener` once per burst of watched writes on this connection, after its transaction ended (committed or
   * rolled back), so another connection's cache is dropped only once the new rows are visible to it.
   */
  onCommittedWrite(listener: () => void): void;
}

export function createReadCache(db: SqliteDatabase): ReadCache {
  let generation = 0;
  const listeners: Array<() => void> = [];
  let told = false;
  /** Checked on the next loop turns until the connection is out of its transaction (async units keep it open). */
  const tellOnceOutside = (): void => {
    if (db.inTransaction) return void setImmediate(tellOnceOutside);
    told = false;
    for (const listener of listeners) listener();
  };
  const bump = () => {
    generation += 1;
    if (listeners.length === 0 || told) return;
    told = true;
    setImmediate(tellOnceOutside);
  };
  /** The generation when a cached read last ran outside a transaction: committed state had no newer watched write. */
  let committedGeneration = -1;
  const readsCommittedState = (): boolean => {
    if (!db.inTransaction) committedGeneration = generation;
    return committedGeneration === generation;
  };

  /** A statement whose run (or RETURNING read) bumps the generation first; chained setters keep the wrapper. */
  function watchStatement<S extends object>(statement: S): S {
    const wrapper: S = new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        const isRun = property === 'run' || property === 'get' || property === 'all' || property === 'iterate';
        return (...args: unknown[]) => {
          if (isRun) bump();
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? wrapper : result;
        };
      },
    });
    return wrapper;
  }

  const watched = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          const statement = target.prepare(sql);
          const table = WRITE_TARGET.exec(sql)?.[1]?.toLowerCase();
          return table !== undefined && WATCHED.has(table) ? watchStatement(statement) : statement;
        };
      }
      if (property === 'exec') {
        // Bulk SQL (migrations, tests): treated as a write to everything.
        return (sql: string) => (bump(), target.exec(sql));
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

  return {
    db: watched,
    generation: () => generation,
    invalidate: () => void (generation += 1),
    onCommittedWrite: (listener) => void listeners.push(listener),
    cached(read, key, options = {}) {
      const maxEntries = Math.min(options.maxEntries ?? MAX_ENTRIES, MAX_ENTRIES);
      const entries = new Map<string, unknown>();
      let seen = generation;
      return (...args) => {
        if (seen !== generation) {
          entries.clear();
          seen = generation;
        }
        const k = key(...args);
        if (entries.has(k)) return entries.get(k) as ReturnType<typeof read>;
        // Asked before the read: a read that itself writes (RETURNING) must not count as committed state.
        const committed = readsCommittedState();
        const value = read(...args);
        // Filled only from committed state; an entry read inside a transaction is still valid, since any watched
        // write of that transaction has already cleared the cache.
        if (!committed || generation !== seen) return value;
        if (entries.size >= maxEntries) entries.clear();
        entries.set(k, deepFreeze(value));
        return value;
      };
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
