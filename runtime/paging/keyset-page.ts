// One page of a keyset list: one row probed ahead tells whether a next page exists, without a count query.
import { decodePosition, encodePosition, invalidCursor, type KeysetPosition } from './cursor.js';

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/** A list's query: page size and the previous page's `nextCursor`. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** A page of views, as the list routes answer it under their own field name. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageOf<R> {
  rows: R[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/** Where a record sorted by (createdAt, id) sits: the position of most lists. */
export const byCreation = (record: { readonly createdAt: number; readonly id: string }): KeysetPosition => ({ createdAt: record.createdAt, id: record.id });

/** `fetch(after, n)` returns up to n rows after the position; `positionOf` says where a row sits in the order. */
export function keysetPage<R>(
  cursor: string | undefined,
  limit: number,
  fetch: (after: KeysetPosition | null, n: number) => R[],
  positionOf: (row: R) => KeysetPosition,
): PageOf<R> {
  const rows = fetch(cursor ? decodePosition(cursor) : null, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? encodePosition(positionOf(last)) : null };
}

/** keysetPage with each row turned into its view. */
export function viewPage<R, T>(query: PageQuery, fetch: (after: KeysetPosition | null, n: number) => R[], positionOf: (row: R) => KeysetPosition, view: (row: R) => T): Page<T> {
  const page = keysetPage(query.cursor, query.limit ?? PAGE_DEFAULT, fetch, positionOf);
  return { items: page.rows.map(view), nextCursor: page.nextCursor };
}

/** Revision histories page newest first by number: the cursor holds the last revision shown. */
export function revisionPage<R>(cursor: string | undefined, limit: number, fetch: (below: number, n: number) => R[], numberOf: (row: R) => number): PageOf<R> {
  const rows = fetch(cursor ? decodeRevisionCursor(cursor) : Number.MAX_SAFE_INTEGER, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? Buffer.from(`r${numberOf(last)}`, 'utf8').toString('base64url') : null };
}

function decodeRevisionCursor(text: string): number {
  const match = /^r(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw invalidCursor();
  return Number(match[1]);
}
