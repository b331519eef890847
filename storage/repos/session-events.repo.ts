// Session event rows: dense per-session seq assigned at insert, range reads for replay, prefix pruning.
import type { SqliteDatabase } from '../database.js';

export interface SessionEventRow {
  seq: number;
  /** Epoch milliseconds. */
  ts: number;
  type: string;
  /** JSON object text: the event's fields other than `type`. */
  payload: string;
}

export interface SeqBounds {
  /** Lowest stored seq, 0 when the session has no rows. */
  minSeq: number;
  /** Highest stored seq, 0 when the session has no rows. */
  maxSeq: number;
}

export function createSessionEventsRepo(db: SqliteDatabase) {
  const s = {
    // One statement reads MAX and inserts: the seq is assigned by whatever transaction the row commits in,
    // so a rolled-back unit leaves no hole and seqs stay dense (1, 2, 3 ... with no gaps).
    appendNext: db
      .prepare(
        `INSERT INTO session_events (session_id, seq, ts, type, payload)
         SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM session_events WHERE session_id = ?
         RETURNING seq`,
      )
      .pluck(),
    maxSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = ?').pluck(),
    // Two scalar subqueries: SQLite answers each MIN/MAX from the primary key in O(log n); one query with both would scan.
    bounds: db.prepare(
      `SELECT (SELECT COALESCE(MIN(seq), 0) FROM session_events WHERE session_id = @id) AS minSeq,
              (SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = @id) AS maxSeq`,
    ),
    range: db.prepare(
      `SELECT seq, ts, type, payload FROM session_events
       WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    ),
    // The newest row always survives: it is the seq high-water mark, so numbering never restarts at 1.
    pruneThrough: db.prepare(
      `DELETE FROM session_events WHERE session_id = @id AND seq <= @through
         AND seq < (SELECT MAX(seq) FROM session_events WHERE session_id = @id)`,
    ),
  };

  return {
    /** Inserts the session's next event and returns its seq. Run inside a transaction (a unit of work). */
    appendNext(sessionId: string, ts: number, type: string, payload: string): number {
      return s.appendNext.get(sessionId, ts, type, payload, sessionId) as number;
    },
    maxSeq(sessionId: string): number {
      return s.maxSeq.get(sessionId) as number;
    },
    bounds(sessionId: string): SeqBounds {
      return s.bounds.get({ id: sessionId }) as SeqBounds;
    },
    /** Rows with afterSeq < seq <= throughSeq, ascending, at most `limit`. */
    listRange(sessionId: string, afterSeq: number, throughSeq: number, limit: number): SessionEventRow[] {
      return s.range.all(sessionId, afterSeq, throughSeq, limit) as SessionEventRow[];
    },
    /** Deletes rows with seq <= throughSeq except the session's newest; returns how many went. */
    pruneThrough(sessionId: string, throughSeq: number): number {
      return s.pruneThrough.run({ id: sessionId, through: throughSeq }).changes;
    },
  };
}

export type SessionEventsRepo = ReturnType<typeof createSessionEventsRepo>;
