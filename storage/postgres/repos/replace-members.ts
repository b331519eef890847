// Replacing a parent's set of child rows (a trigger's subscribers, an agent's bindings) on PostgreSQL: atomic, serialized per parent.
import { ConstraintViolationError } from '../../port/errors.js';
import { write, type Queryable } from './sql.js';

export interface MemberSet {
  /** The parent row locked first: `SELECT 1 FROM <parent> WHERE id = $1 FOR NO KEY UPDATE`. */
  parent: string;
  /** The child table, its parent column and member column; `extra` is the one other column the new rows carry. */
  table: string;
  parentColumn: string;
  memberColumn: string;
  extra: { column: string; type: string };
  /** The unique constraint a repeated member breaks (what SQLite reports for the second insert). */
  constraint: string;
}

/**
 * Makes the children of `parentId` exactly `members` (each with its `extras` value). Why two statements: one statement
 * sees one snapshot, so two replacements racing under READ COMMITTED would each miss the other's new rows and leave
 * the union of both lists. Locking the parent row first queues a second replacement until the first commits, and its
 * statement then starts with a snapshot that sees it: last writer wins, as on SQLite's single writer. The lock lasts
 * only as long as the transaction, so call it inside a unit of work; on a pool the write is still atomic (one statement).
 */
export async function replaceMembers(q: Queryable, set: MemberSet, parentId: string, members: readonly string[], extras: readonly unknown[]): Promise<void> {
  // A repeated member fails as SQLite's second insert does, before anything is written.
  if (new Set(members).size !== members.length) throw new ConstraintViolationError('unique', set.table, set.constraint);
  await write(q, `SELECT 1 FROM ${set.parent} WHERE id = $1 FOR NO KEY UPDATE`, [parentId]);
  // Members kept are updated in place, never deleted and re-inserted: a statement cannot see its own CTE's delete.
  await write(
    q,
    `WITH dropped AS (DELETE FROM ${set.table} WHERE ${set.parentColumn} = $1 AND ${set.memberColumn} <> ALL($2::text[]))
     INSERT INTO ${set.table} (${set.parentColumn}, ${set.memberColumn}, ${set.extra.column})
     SELECT $1, member, extra FROM unnest($2::text[], $3::${set.extra.type}[]) AS m(member, extra)
     ON CONFLICT (${set.parentColumn}, ${set.memberColumn}) DO UPDATE SET ${set.extra.column} = EXCLUDED.${set.extra.column}`,
    [parentId, members, extras],
  );
}
