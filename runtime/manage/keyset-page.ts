// Keyset pages shared by the management lists: oldest first by (created_at, id), an opaque cursor, one row probed ahead.
import { decodeCursor, encodeCursor } from '../triggers/run-history.js';
import { validation } from '../errors.js';

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

export interface KeysetPosition {
  createdAt: number;
  id: string;
}

export interface PageOf<R> {
  rows: R[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** `fetch(after, n)` returns up to n rows after the position; asking one more than `limit` tells whether a next page exists. */
export function keysetPage<R extends { created_at: number; id: string }>(
  cursor: string | undefined,
  limit: number,
  fetch: (after: KeysetPosition | null, n: number) => R[],
): PageOf<R> {
  const rows = fetch(cursor ? decodeCursor(cursor) : null, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null };
}

/** Revision histories page newest first by number: the cursor holds the last revision shown. */
export function revisionPage<R>(cursor: string | undefined, limit: number, fetch: (below: number, n: number) => R[], numberOf: (row: R) => number): PageOf<R> {
  const rows = fetch(cursor ? decodeRevisionCursor(cursor) : Number.MAX_SAFE_INTEGER, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? Buffer.from(`r${numberOf(last)}`, 'utf8').toString('base64url') : null };
}

function decodeRevisionCursor(text: string): number {
  const match = /^r(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw validation('The cursor is not valid.', { issues: [{ path: 'cursor', message: 'use nextCursor from a previous page' }] });
  return Number(match[1]);
}
