// One page of a keyset list: one row probed ahead tells whether a next page exists, without a count query.
import type { Awaitable } from '../../storage/port/storage.js';
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

/**
 * The page from a read of `limit + 1` rows: the extra row only says a next page exists, and the cursor names the
 * last row shown (`cursorOf`).
 */
export function probedPage<R>(rows: readonly R[], limit: number, cursorOf: (last: R) => string): PageOf<R> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}

/** The cursor after a record sorted by (createdAt, id), newest first. */
export const creationCursor = (record: { readonly createdAt: number; readonly id: string }): string => encodePosition(byCreation(record));

/** Where a record sorted by (createdAt, id) sits: the position of most lists. */
export const byCreation = (record: { readonly createdAt: number; readonly id: string }): KeysetPosition => ({ createdAt: record.createdAt, id: record.id });

/** `fetch(after, n)` returns up to n rows after the position (a repository read); `positionOf` says where a row sits in the order. */
export async function keysetPage<R>(
  cursor: string | undefined,
  limit: number,
  fetch: (after: KeysetPosition | null, n: number) => Awaitable<R[]>,
  positionOf: (row: R) => KeysetPosition,
): Promise<PageOf<R>> {
  const rows = await fetch(cursor ? decodePosition(cursor) : null, limit + 1);
  return probedPage(rows, limit, (last) => encodePosition(positionOf(last)));
}

/** keysetPage with each row turned into its view (a view that reads storage is awaited, row by row). */
export async function viewPage<R, T>(
  query: PageQuery,
  fetch: (after: KeysetPosition | null, n: number) => Awaitable<R[]>,
  positionOf: (row: R) => KeysetPosition,
  view: (row: R) => Awaitable<T>,
): Promise<Page<T>> {
  const page = await keysetPage(query.cursor, query.limit ?? PAGE_DEFAULT, fetch, positionOf);
  const items: T[] = [];
  for (const row of page.rows) items.push(await view(row));
  return { items, nextCursor: page.nextCursor };
}

/**
 * Above every revision number either schema stores (PostgreSQL's `integer` columns): the bound of a first page, and
 * the clamp of a cursor's number, since PostgreSQL refuses a larger parameter for an `integer` comparison (a 500).
 */
const REVISION_CEILING = 2_147_483_647;

/** Revision histories page newest first by number: the cursor holds the last revision shown. */
export async function revisionPage<R>(
  cursor: string | undefined,
  limit: number,
  fetch: (below: number, n: number) => Awaitable<R[]>,
  numberOf: (row: R) => number,
): Promise<PageOf<R>> {
  const rows = await fetch(cursor ? decodeRevisionCursor(cursor) : REVISION_CEILING, limit + 1);
  return probedPage(rows, limit, (last) => Buffer.from(`r${numberOf(last)}`, 'utf8').toString('base64url'));
}

function decodeRevisionCursor(text: string): number {
  const match = /^r(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) throw invalidCursor();
  return Math.min(Number(match[1]), REVISION_CEILING);
}
