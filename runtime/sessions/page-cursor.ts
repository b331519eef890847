// Opaque keyset cursors of the session pages: a tuple of numbers and ids, base64url JSON (as Run history's).
import { validation } from '../errors.js';
import { isUuid } from '../ids.js';

const invalidCursor = () => validation('The cursor is not valid.', { issues: [{ path: 'cursor', message: 'use nextCursor from a previous page' }] });

export function encodeTuple(values: ReadonlyArray<number | string>): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** Decodes a cursor this service issued in `shape` ('n' a safe integer, 's' an id); anything else is a 400. */
export function decodeTuple(text: string, shape: ReadonlyArray<'n' | 's'>): Array<number | string> {
  try {
    const values = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    const fits =
      Array.isArray(values) &&
      values.length === shape.length &&
      values.every((v, i) => (shape[i] === 'n' ? Number.isSafeInteger(v) : typeof v === 'string' && v.length > 0 && v.length <= 64));
    if (fits) return values as Array<number | string>;
  } catch {
    // Falls through: the cursor is opaque and this one was not ours.
  }
  throw invalidCursor();
}

/** A `(createdAt, id)` keyset cursor (the session list), encoded as Run history encodes its own. */
export function encodeTimeCursor(cursor: { createdAt: number; id: string }): string {
  return encodeTuple([cursor.createdAt, cursor.id]);
}

/** Decodes a `(createdAt, id)` cursor; the id must be a UUID (sessions are keyed by UUID), anything else is a 400. */
export function decodeTimeCursor(text: string): { createdAt: number; id: string } {
  const [createdAt, id] = decodeTuple(text, ['n', 's']) as [number, string];
  if (!isUuid(id)) throw invalidCursor();
  return { createdAt, id };
}
