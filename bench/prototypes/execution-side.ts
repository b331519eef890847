// Measurement prototype, not service code: the execution side — materializes accepted runs (2 sessions each) and runs their executions.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { GroupCommit } from './group-commit.js';
import { SEED } from './split-db.js';
import { turnWork } from './turn-work.js';

/** What a committed event row tells the fan-out (the SSE frame is built from it on the accept side). */
export interface Envelope {
  sessionId: string;
  seq: number;
  type: string;
}

export interface ExecutionSideDeps {
  db: Database.Database;
  writer: GroupCommit;
  /** Yields to I/O between steps (the service's pacer inline; the same in the worker, where only messages wait). */
  pace: () => Promise<void>;
  /** CPU chunks per execution (turn-work.ts calibration); split over its four steps. */
  chunks: number;
  /** Executions in flight at once; the rest wait in memory (their rows are durable). */
  concurrency: number;
  /** After each materializing commit: how many runs are materialized in all. */
  materialized(through: number): void;
  /** After each execution unit commits, its event. */
  publish(envelope: Envelope): void;
  completed(): void;
}

export interface ExecutionSide {
  accepted(runIds: readonly string[]): void;
}

const STEPS = ['turn.started', 'step.completed', 'tool.result', 'turn.completed'] as const;

export function createExecutionSide(deps: ExecutionSideDeps): ExecutionSide {
  const { db, writer } = deps;
  const s = {
    run: db.prepare('SELECT results FROM trigger_runs WHERE id = ?').pluck(),
    session: db.prepare("INSERT INTO sessions (id, org_id, domain_id, automation_id, revision, visibility, origin, trigger_run_id, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 'domain', 'trigger', ?, ?, ?)"),
    execution: db.prepare("INSERT INTO executions (id, session_id, position, status, input, created_at, updated_at, revision, entry) VALUES (?, ?, 1, 'queued', '{}', ?, ?, 1, 'open')"),
    message: db.prepare('INSERT INTO messages (id, session_id, execution_id, role, content, created_at, position) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    status: db.prepare('UPDATE executions SET status = ?, updated_at = ?, settled_at = ? WHERE id = ?'),
    touch: db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?'),
    event: db.prepare('INSERT INTO session_events (session_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)'),
  };
  let incoming: string[] = [];
  let materializing = false;
  let materializedRuns = 0;
  const ready: Array<{ sessionId: string; executionId: string }> = [];
  let running = 0;

  function materialize(): void {
    materializing = false;
    const runIds = incoming;
    incoming = [];
    const created: typeof ready = [];
    writer.submit(
      () => {
        const now = Date.now();
        for (const runId of runIds) {
          const plan = JSON.parse(s.run.get(runId) as string) as Array<{ automationId: string; sessionId: string }>;
          for (const { automationId, sessionId } of plan) {
            const executionId = randomUUID();
            s.session.run(sessionId, SEED.org, SEED.domain, automationId, runId, now, now);
            s.execution.run(executionId, sessionId, now, now);
            s.message.run(randomUUID(), sessionId, executionId, 'user', 'The trigger "New lead" fired with this input:\n- id: c-1', now, 1);
            s.event.run(sessionId, 1, now, 'session.started', '{}');
            created.push({ sessionId, executionId });
          }
        }
      },
      () => {
        materializedRuns += runIds.length;
        deps.materialized(materializedRuns);
        for (const { sessionId } of created) deps.publish({ sessionId, seq: 1, type: 'session.started' });
        ready.push(...created);
        startMore();
      },
    );
  }

  function startMore(): void {
    while (running < deps.concurrency && ready.length > 0) {
      running += 1;
      void execute(ready.shift()!).finally(() => {
        running -= 1;
        deps.completed();
        startMore();
      });
    }
  }

  async function execute({ sessionId, executionId }: { sessionId: string; executionId: string }): Promise<void> {
    const stepChunks = Math.max(1, Math.round(deps.chunks / STEPS.length));
    for (const [index, type] of STEPS.entries()) {
      await deps.pace();
      const result = turnWork(stepChunks);
      const seq = index + 2; // seq 1 is the session's start, written when it was materialized
      await writer.unit(() => {
        const now = Date.now();
        if (type === 'turn.started') s.status.run('running', now, null, executionId);
        if (type === 'step.completed') s.message.run(randomUUID(), sessionId, executionId, 'assistant', `Looking up c-1 (${result})`, now, 2);
        if (type === 'tool.result') s.message.run(randomUUID(), sessionId, executionId, 'tool', '{"id":"c-1","company":"Acme"}', now, 3);
        if (type === 'turn.completed') {
          s.status.run('completed', now, now, executionId);
          s.touch.run(now, sessionId);
        }
        s.event.run(sessionId, seq, now, type, JSON.stringify({ executionId }));
      });
      deps.publish({ sessionId, seq, type });
    }
  }

  return {
    accepted(runIds) {
      incoming.push(...runIds);
      if (materializing) return;
      materializing = true;
      setImmediate(materialize);
    },
  };
}
