// Opaque keyset cursors for every list: a tuple of numbers and ids as base64url JSON, anything else a 400.
import { validation } from '../errors.js';
import { isUuid } from '../ids.js';

/** Where a page sorted by (created_at, id) stopped: most lists page this way. */
export interface KeysetPosition {
  createdAt: number;
  id: string;
}

export function encodeTuple(values: ReadonlyArray<number | string>): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The error every list answers for a cursor it did not issue (callers with another envelope, e.g. MCP, map it). */
export const invalidCursor = () => validation('The cursor is not valid.', { issues: [{ path: 'cursor', message: 'use nextCursor from a previous page' }] });

/** What a cursor element is: 'n' a safe integer, 's' a short string, 'u' a UUID (every row id). */
type Element = 'n' | 's' | 'u';

const fitsElement = (value: unknown, element: Element): boolean =>
  element === 'n' ? Number.isSafeInteger(value) : typeof value === 'string' && (element === 'u' ? isUuid(value) : value.length > 0 && value.length <= 64);

/** Decodes a cursor this service issued in `shape`; anything else is a 400. */
export function decodeTuple(text: string, shape: ReadonlyArray<Element>): Array<number | string> {
  try {
    const values = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    const fits = Array.isArray(values) && values.length === shape.length && values.every((v, i) => fitsElement(v, shape[i]!));
    if (fits) return values as Array<number | string>;
  } catch {
    // Falls through: the cursor is opaque and this one was not ours.
  }
  throw invalidCursor();
}

export const encodePosition = (position: KeysetPosition): string => encodeTuple([position.createdAt, position.id]);

export function decodePosition(text: string): KeysetPosition {
  const [createdAt, id] = decodeTuple(text, ['n', 'u']) as [number, string];
  return { createdAt, id };
}
