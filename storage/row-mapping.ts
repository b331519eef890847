// The few helpers repositories share to map SQL rows to records (storage/records): optional rows, JSON columns.

/**
 * A JSON object column read leniently: text that is not a JSON object (unreadable, `null`, an array) reads as `{}`,
 * so one bad row degrades to the column's default instead of failing every request that reads it.
 */
export function jsonObjectColumn(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Maps a `.get()` result: no row stays `undefined`. */
export function mapOptional<R, T>(row: unknown, fromRow: (row: R) => T): T | undefined {
  return row === undefined ? undefined : fromRow(row as R);
}

/** A JSON column of any shape, parsed; `undefined` when the text does not parse (the caller's schema refuses it). */
export function jsonColumn(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
