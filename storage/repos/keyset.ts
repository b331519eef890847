// Keyset paging on SQLite: the (created_at, id) bound and order of every oldest-first list page.
import type { CreatedCursor } from '../records/paging.js';

/** The (created_at, id) columns a keyset page orders by; a join names them with their table's alias. */
export interface KeysetColumns {
  createdAt: string;
  id: string;
}

export const CREATED_COLUMNS: KeysetColumns = { createdAt: 'created_at', id: 'id' };

/**
 * Rows strictly after (@after_at, @after_id), oldest first, at most @limit (keysetAfterParams binds them). A row
 * value comparison, which SQLite answers from a (…, created_at, id) index. Ends the statement: put it last.
 */
export const keysetAfter = ({ createdAt, id }: KeysetColumns = CREATED_COLUMNS): string =>
  `(${createdAt}, ${id}) > (@after_at, @after_id) ORDER BY ${createdAt}, ${id} LIMIT @limit`;

/** keysetAfter's parameters; no position is a bound below every row (times are not negative, ids not empty). */
export const keysetAfterParams = (after: CreatedCursor | null, limit: number) => ({ after_at: after?.createdAt ?? -1, after_id: after?.id ?? '', limit });
