// A batch transaction's row locks: fence checks ride a control statement's round trip; a lease or row locked once is not locked again.
/*
 * Every unit submitted under a session's lease starts with `SELECT … FOR SHARE` on the lease row (leases.ts
 * assertFenced): one round trip per unit, the largest single cost the PostgreSQL profile of a fire showed (decision
 * "PostgreSQL throughput: where the time went"). The unit writer already sends a control statement before each unit
 * (BEGIN, or the SAVEPOINT taken after the previous unit), so the check goes in the same simple-protocol message;
 * the simple protocol takes no parameters, hence literals (escapeLiteral, an integer token).
 *
 * Within one transaction a lease row this transaction locked FOR SHARE cannot change hands until it ends (a takeover
 * updates the row and waits), so a later unit under the same lease needs no second check, unless the lock was undone:
 * ROLLBACK TO SAVEPOINT releases the row locks taken after that savepoint, so the leases checked since the last
 * savepoint are forgotten with it. Repositories use the same memo for their own row locks (lockOnce: a session's
 * row locked before each message insert, several per unit), found by the client the batch runs on.
 */
import pg from 'pg';
import type { Fence } from './fence.js';
import { assertFenced } from './leases.js';
import type { Queryable } from './queryable.js';

const keyOf = (fence: Fence): string => `fence ${fence.token} ${fence.resource}`;

/** PostgreSQL's answer to any statement after an earlier one failed in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/** The batch transaction open on each client the unit writer holds (nothing for a pool or any other client). */
const openBatches = new WeakMap<Queryable, BatchLocks>();

/**
 * Takes a row lock by running `lock` (a `SELECT … FOR NO KEY UPDATE`), unless `q` is a unit writer's batch client
 * whose transaction already holds it (then nothing is sent). Outside a batch the lock is taken every time.
 */
export async function lockOnce(q: Queryable, key: string, lock: () => Promise<void>): Promise<void> {
  const batch = openBatches.get(q);
  if (batch === undefined) return lock();
  await batch.lockOnce(key, lock);
}

export class BatchLocks {
  /** Leases verified (and locked FOR SHARE) and rows locked by this transaction. */
  private readonly verified = new Set<string>();
  /** Those verified since the latest savepoint: a ROLLBACK TO it releases their locks. */
  private sinceSavepoint: string[] = [];

  constructor(readonly client: pg.PoolClient) {}

  /** From BEGIN until the transaction ended: repositories on this client may skip locks it holds. */
  opened(): void {
    openBatches.set(this.client, this);
  }

  ended(): void {
    if (openBatches.get(this.client) === this) openBatches.delete(this.client);
  }

  async lockOnce(key: string, lock: () => Promise<void>): Promise<void> {
    if (this.verified.has(key)) return;
    await lock();
    this.verified.add(key);
    this.sinceSavepoint.push(key);
  }

  /**
   * Runs `control` (ending with a savepoint when `savepoint`) and, in the same round trip, the check of `fence` unless
   * already verified. The check's answer (true: held), or undefined when none was sent. A failing control statement
   * rejects as it would alone; when only the check failed the transaction is rolled back to the savepoint (which
   * the control took) and the answer is undefined: the unit checks again on its own, as if nothing had ridden along.
   */
  async control(control: string, savepoint: boolean, fence: Fence | undefined): Promise<boolean | undefined> {
    const check = fence === undefined || this.verified.has(keyOf(fence)) ? null : this.sql(fence);
    if (check === null) {
      await this.client.query(control);
      if (savepoint) this.sinceSavepoint = [];
      return fence === undefined ? undefined : true;
    }
    let results: pg.QueryResult[];
    try {
      results = (await this.client.query(`${control}; ${check}`)) as unknown as pg.QueryResult[];
    } catch (error) {
      // The control itself failed (or the transaction was already aborted), or there is no savepoint to return to.
      if (!(error instanceof pg.DatabaseError) || error.code === IN_FAILED_TRANSACTION || !savepoint) throw error;
      await this.client.query('ROLLBACK TO SAVEPOINT unit');
      this.sinceSavepoint = [];
      return undefined;
    }
    if (savepoint) this.sinceSavepoint = [];
    const held = results.at(-1)!.rowCount === 1;
    if (held) this.remember(fence!);
    return held;
  }

  /** The unit's own check, when none rode along: nothing to send when this transaction verified the lease already. */
  async check(fence: Fence): Promise<void> {
    if (this.verified.has(keyOf(fence))) return;
    await assertFenced(this.client, fence.resource, fence.token);
    this.remember(fence);
  }

  /** Call after ROLLBACK TO SAVEPOINT unit: the locks taken since that savepoint are gone. */
  rolledBack(): void {
    for (const key of this.sinceSavepoint) this.verified.delete(key);
    this.sinceSavepoint = [];
  }

  private remember(fence: Fence): void {
    const key = keyOf(fence);
    this.verified.add(key);
    this.sinceSavepoint.push(key);
  }

  private sql(fence: Fence): string {
    if (!Number.isSafeInteger(fence.token)) throw new RangeError(`fence token ${fence.token} is not an integer`);
    return `SELECT 1 FROM resource_leases WHERE resource = ${this.client.escapeLiteral(fence.resource)} AND token = ${fence.token} AND holder IS NOT NULL FOR SHARE`;
  }
}
