// How each driver reads and writes the column kinds its engine stores differently, so one row mapping per table serves both.
/*
 * SQLite has no boolean or JSON type: booleans are 0/1 integers and JSON is text. PostgreSQL returns `boolean` as a
 * boolean and `json`/`jsonb` already parsed (pg's type parsers; int8 comes back as a number, storage/postgres/
 * connection.ts). A table's `fromRow`/`toRow` is written once against a codec and each driver passes its own, so the
 * two repositories of a table cannot drift in field names or defaults. Columns kept as text on purpose (bytes sent
 * again verbatim: a claim's stored 202, event payloads) are `text` on both engines and need no codec.
 */
import { jsonColumn, jsonObjectColumn } from './row-mapping.js';

export interface RowCodec {
  /** A boolean column as read. */
  bool(value: unknown): boolean;
  /** A boolean as the engine stores it. */
  toBool(value: boolean): number | boolean;
  /** A JSON column of any shape as read; `undefined` when SQLite's text does not parse. */
  json(value: unknown): unknown;
  /** A JSON column that must hold an object: anything else (unreadable, null, an array) reads as `{}`. */
  jsonObject(value: unknown): Record<string, unknown>;
  /** A JSON column that must hold an array: anything else reads as `[]`. */
  jsonArray<T>(value: unknown): T[];
  /** A value to store in a JSON column: always text (pg would send a JavaScript array as a PostgreSQL array). */
  toJson(value: unknown): string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const sqliteCodec: RowCodec = {
  bool: (value) => value === 1,
  toBool: (value) => (value ? 1 : 0),
  json: (value) => (typeof value === 'string' ? jsonColumn(value) : undefined),
  jsonObject: (value) => jsonObjectColumn(typeof value === 'string' ? value : null),
  jsonArray: <T>(value: unknown) => {
    const parsed = typeof value === 'string' ? jsonColumn(value) : undefined;
    return Array.isArray(parsed) ? (parsed as T[]) : [];
  },
  toJson: (value) => JSON.stringify(value),
};

export const postgresCodec: RowCodec = {
  bool: (value) => value === true,
  toBool: (value) => value,
  json: (value) => value,
  jsonObject: (value) => (isObject(value) ? value : {}),
  jsonArray: <T>(value: unknown) => (Array.isArray(value) ? (value as T[]) : []),
  toJson: (value) => JSON.stringify(value),
};
