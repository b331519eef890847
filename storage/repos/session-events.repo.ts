// Session events: dense per-session seq assigned at insert, range reads for replay, prefix pruning.
import type { SqliteDatabase } from '../database.js';
import { journalOf } from '../tx-journal.js';
import type { SeqBounds, StoredSessionEvent } from '../records/session-events.js';

/** Sessions whose next seq is held in memory; past it the least recently appended are forgotten (and reseeded). */
const SEQ_CACHE_LIMIT = 50_000;

/*
 * No row type and no fromRow here: the range statement selects exactly the record's fields under their own names
 * (seq, ts, type, payload), so a replay of thousands of events returns SQLite's objects as they come, with no
 * per-row copy (issue 12 item 8: mapping stays off the SSE replay path). The bounds query names its columns too.
 */

export function createSessionEventsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare('INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)'),
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

  /*
   * Issue 12 item 5: each session's last seq is held in memory, seeded once from MAX(seq), so an append is one
   * plain insert. It stays right whoever wrote earlier rows: a seq someone else took fails the primary key, and the
   * session is reseeded from the table and the insert retried. A unit that rolls back puts its sessions' seqs back
   * (tx-journal), so seqs stay dense (1, 2, 3 ... with no gaps); an append outside any frame is not cached.
   */
  const lastSeq = new Map<string, number>();
  const journal = journalOf(db);

  function remember(sessionId: string, seq: number): void {
    lastSeq.delete(sessionId);
    if (lastSeq.size >= SEQ_CACHE_LIMIT) lastSeq.delete(lastSeq.keys().next().value!);
    lastSeq.set(sessionId, seq);
  }

  function insertAt(sessionId: string, seq: number, ts: number, type: string, payload: string): boolean {
    try {
      s.insert.run(sessionId, seq, ts, type, payload);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw error;
    }
  }

  return {
    /** Inserts the session's next event and returns its seq. Run inside a transaction (a unit of work). */
    appendNext(sessionId: string, ts: number, type: string, payload: string): number {
      const cached = lastSeq.get(sessionId);
      let seq = (cached ?? (s.maxSeq.get(sessionId) as number)) + 1;
      if (!insertAt(sessionId, seq, ts, type, payload)) {
        // Rows were appended by someone who does not share this cache: the table is the truth.
        seq = (s.maxSeq.get(sessionId) as number) + 1;
        s.insert.run(sessionId, seq, ts, type, payload);
      }
      if (!journal.framed) {
        lastSeq.delete(sessionId);
        return seq;
      }
      remember(sessionId, seq);
      journal.onRollback(() => (cached === undefined ? lastSeq.delete(sessionId) : lastSeq.set(sessionId, cached)));
      return seq;
    },
    maxSeq(sessionId: string): number {
      return s.maxSeq.get(sessionId) as number;
    },
    bounds(sessionId: string): SeqBounds {
      return s.bounds.get({ id: sessionId }) as SeqBounds;
    },
    /** Rows with afterSeq < seq <= throughSeq, ascending, at most `limit`. */
    listRange(sessionId: string, afterSeq: number, throughSeq: number, limit: number): StoredSessionEvent[] {
      return s.range.all(sessionId, afterSeq, throughSeq, limit) as StoredSessionEvent[];
    },
    /** Deletes rows with seq <= throughSeq except the session's newest; returns how many went. */
    pruneThrough(sessionId: string, throughSeq: number): number {
      return s.pruneThrough.run({ id: sessionId, through: throughSeq }).changes;
    },
  };
}

export type SessionEventsRepo = ReturnType<typeof createSessionEventsRepo>;
