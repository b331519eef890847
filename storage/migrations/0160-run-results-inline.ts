// Run history keeps each firing's subscriber results inside its trigger_runs row (one row per accepted fire).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 160,
  name: 'run-results-inline',
  up(db) {
    db.exec(`
      -- Issue 12: a fire wrote one subscriber_results row per subscriber beside its run. Results are written once,
      -- with the run, and read with it, so they live in the run row as a JSON array in firing order:
      -- [{ "automationId", "position", "status", "code", "reason", "sessionId" }].
      ALTER TABLE trigger_runs ADD COLUMN results TEXT NOT NULL DEFAULT '[]';
      UPDATE trigger_runs SET results = (
        SELECT json_group_array(json_object('automationId', r.automation_id, 'position', r.position, 'status', r.status,
                                            'code', r.code, 'reason', r.reason, 'sessionId', r.session_id))
        FROM (SELECT * FROM subscriber_results WHERE run_id = trigger_runs.id ORDER BY position, automation_id) r
      ) WHERE EXISTS (SELECT 1 FROM subscriber_results WHERE run_id = trigger_runs.id);
      DROP TABLE subscriber_results;
    `);
  },
};
