// The shape of one schema migration.
import type { SqliteDatabase } from '../database.js';

export interface Migration {
  /** Steps of 10 so a fix can slot in between (Signal-Desktop style). */
  version: number;
  name: string;
  up(db: SqliteDatabase): void;
}
