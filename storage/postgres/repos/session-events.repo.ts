// Session events on PostgreSQL: per-session seq allocated in the insert itself, range reads for replay, prefix pruning.
import type { SeqBounds, StoredSessionEvent } from '../../records/session-events.js';
import { SESSION_EVENTS_CHANNEL } from '../session-notify.js';
import { many, one, run, scalar, type Queryable } from './sql.js';

/** A bound on allocation retries: each one means another transaction just committed this session's next seq. */
const MAX_ATTEMPTS = 100;

/*
 * SQLite holds each session's next seq in memory (one process is the only writer). Here several nodes append, and a
 * repository set lives for one transaction, so the seq is taken in the insert: MAX(seq) + 1 from the primary key
 * (O(log n)), in the same statement. Two transactions may compute the same seq under READ COMMITTED; the primary
 * key decides, and ON CONFLICT (session_id, seq) DO NOTHING makes the loser's statement return no row instead of
 * aborting its transaction (a unique violation would poison the whole unit of work). The loser then tries again: a
 * new statement takes a new snapshot, which sees the winner's committed row, so it takes the next seq. The caller
 * never sees a swallowed duplicate: appendNext returns only a seq whose row it wrote.
 */
/*
 * The same statement announces the row to every node (pg_notify, payload as encodeSignal in session-notify.ts):
 * PostgreSQL delivers it when the transaction commits and never if it rolls back, so no code above storage knows
 * about it and no committed event goes unannounced. A losing attempt returns no row, so it notifies nothing.
 */
const APPEND = `WITH inserted AS (
    INSERT INTO session_events (session_id, seq, ts, type, payload)
    VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_events WHERE session_id = $1), $2, $3, $4)
    ON CONFLICT (session_id, seq) DO NOTHING RETURNING seq)
  SELECT seq, pg_notify('${SESSION_EVENTS_CHANNEL}', seq || ' ' || $1::text) AS notified FROM inserted`;

/** Payloads are `text` columns: a replay returns the bytes the live stream sent. Rows need no mapping. */
const asIs = <T>(row: T): T => row;

export function createPostgresSessionEventsRepo(q: Queryable) {
  return {
    /** Inserts the session's next event and returns its seq. Run inside a transaction (a unit of work). */
    async appendNext(sessionId: string, ts: number, type: string, payload: string): Promise<number> {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const seq = await scalar<number>(q, APPEND, [sessionId, ts, type, payload]);
        if (seq !== undefined) return seq;
      }
      throw new Error(`session ${sessionId}: no free event seq after ${MAX_ATTEMPTS} attempts (other writers kept taking it)`);
    },
    maxSeq: async (sessionId: string): Promise<number> =>
      (await scalar<number>(q, 'SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = $1', [sessionId]))!,
    bounds: async (sessionId: string): Promise<SeqBounds> =>
      (await one(
        q,
        `SELECT (SELECT COALESCE(MIN(seq), 0) FROM session_events WHERE session_id = $1) AS "minSeq",
                (SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = $1) AS "maxSeq"`,
        [sessionId],
        asIs<SeqBounds>,
      ))!,
    /** Rows with afterSeq < seq <= throughSeq, ascending, at most `limit`. */
    listRange: (sessionId: string, afterSeq: number, throughSeq: number, limit: number): Promise<StoredSessionEvent[]> =>
      many(
        q,
        'SELECT seq, ts, type, payload FROM session_events WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [sessionId, afterSeq, throughSeq, limit],
        asIs<StoredSessionEvent>,
      ),
    /** Deletes rows with seq <= throughSeq except the session's newest (the seq high-water mark); returns how many went. */
    pruneThrough: (sessionId: string, throughSeq: number): Promise<number> =>
      run(
        q,
        `DELETE FROM session_events WHERE session_id = $1 AND seq <= $2
           AND seq < (SELECT MAX(seq) FROM session_events WHERE session_id = $1)`,
        [sessionId, throughSeq],
      ),
  };
}
