// Opaque keyset cursors for management lists: (createdAt, id) of the last row, base64url JSON.
import type { PageAfter } from '../../storage/repos/management.repo.js';
import { validation } from '../errors.js';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const encodeCursor = (after: PageAfter): string => Buffer.from(JSON.stringify([after.createdAt, after.id]), 'utf8').toString('base64url');

export function decodeCursor(text: string | undefined): PageAfter | null {
  if (text === undefined) return null;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'number' && Number.isSafeInteger(createdAt) && typeof id === 'string' && id.length > 0 && id.length <= 64) return { createdAt, id };
  } catch {
    // Falls through: the cursor is opaque and this one was not ours.
  }
  throw validation('The cursor is not valid.', { issues: [{ path: 'cursor', message: 'use nextCursor from a previous page' }] });
}

/** Reads one row more than asked for, so the last page says `nextCursor: null` without a second query. */
export function pageOf<R, T>(query: PageQuery, fetch: (after: PageAfter | null, limit: number) => R[], keyOf: (row: R) => PageAfter, view: (row: R) => T): Page<T> {
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  const rows = fetch(decodeCursor(query.cursor), limit + 1);
  const shown = rows.slice(0, limit);
  const more = rows.length > limit && shown.length > 0;
  return { items: shown.map(view), nextCursor: more ? encodeCursor(keyOf(shown[shown.length - 1]!)) : null };
}
