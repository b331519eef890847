// Measurement prototype, not service code: the execution side's write units as data, so either thread's writer can apply them.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SEED } from './split-db.js';

export const STEPS = ['turn.started', 'step.completed', 'tool.result', 'turn.completed'] as const;

/** An accepted fire's one durable row, sessions of accepted runs to create (one unit per loop turn), or one step of one execution. */
export type WriteUnit =
  | { kind: 'accept'; runId: string; plan: string }
  | { kind: 'materialize'; sessions: Array<{ runId: string; automationId: string; sessionId: string; executionId: string }> }
  | { kind: 'step'; type: (typeof STEPS)[number]; sessionId: string; executionId: string; seq: number; text: string };

/** Prepares the statements once on `db` and returns the function that writes a unit (inside the caller's transaction). */
export function createUnitApplier(db: Database.Database): (unit: WriteUnit) => void {
  const s = {
    run: db.prepare("INSERT INTO trigger_runs (id, trigger_id, org_id, source, fired_by, outcome, idempotency_key, created_at, results) VALUES (?, ?, ?, 'api', NULL, 'succeeded', NULL, ?, ?)"),
    session: db.prepare("INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, origin, trigger_run_id, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 'domain', 'trigger', ?, ?, ?)"),
    execution: db.prepare("INSERT INTO executions (id, session_id, position, status, input, created_at, updated_at, revision, entry) VALUES (?, ?, 1, 'queued', '{}', ?, ?, 1, 'open')"),
    message: db.prepare('INSERT INTO messages (id, session_id, execution_id, role, content, created_at, position) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    status: db.prepare('UPDATE executions SET status = ?, updated_at = ?, settled_at = ? WHERE id = ?'),
    touch: db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?'),
    event: db.prepare('INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)'),
  };
  return (unit) => {
    const now = Date.now();
    if (unit.kind === 'accept') {
      s.run.run(unit.runId, SEED.trigger, SEED.org, now, unit.plan);
      return;
    }
    if (unit.kind === 'materialize') {
      for (const { runId, automationId, sessionId, executionId } of unit.sessions) {
        s.session.run(sessionId, SEED.org, SEED.domain, automationId, runId, now, now);
        s.execution.run(executionId, sessionId, now, now);
        s.message.run(randomUUID(), sessionId, executionId, 'user', 'The trigger "New lead" fired with this input:\n- id: c-1', now, 1);
        s.event.run(sessionId, 1, now, 'session.started', '{}');
      }
      return;
    }
    const { type, sessionId, executionId } = unit;
    if (type === 'turn.started') s.status.run('running', now, null, executionId);
    if (type === 'step.completed') s.message.run(randomUUID(), sessionId, executionId, 'assistant', unit.text, now, 2);
    if (type === 'tool.result') s.message.run(randomUUID(), sessionId, executionId, 'tool', unit.text, now, 3);
    if (type === 'turn.completed') {
      s.status.run('completed', now, now, executionId);
      s.touch.run(now, sessionId);
    }
    s.event.run(sessionId, unit.seq, now, type, JSON.stringify({ executionId }));
  };
}
