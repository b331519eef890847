// Runs a unit of work once more when it lost an insert race: the retry reads the row the winner committed.
/*
 * SQLite's one writer runs units one after another, so a unit's "read, then insert if absent" sees every earlier
 * unit's row. On PostgreSQL units of other batches (or nodes) run in concurrent transactions: two of them can read
 * "absent", and the second insert waits for the first commit and then breaks the unique key. Its unit was rolled back
 * whole, so running it again is safe, and the second run takes the "present" branch (update, replay, or the same
 * refusal as a sequential request). Once is enough: the key's holder has committed by the time the insert failed.
 */
import { isUniqueViolationOn } from '../storage/port/errors.js';

export async function retryLostInsert<T>(tables: readonly string[], submit: () => Promise<T>): Promise<T> {
  try {
    return await submit();
  } catch (error) {
    if (!tables.some((table) => isUniqueViolationOn(error, table))) throw error;
    return submit();
  }
}
