// Measurement prototype, not service code: the execution side — materializes accepted runs (2 sessions each) and runs their executions.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { turnWork } from './turn-work.js';
import { STEPS, type WriteUnit } from './write-units.js';

/** What a committed event row tells the fan-out (the SSE frame is built from it on the accept side). */
export interface Envelope {
  sessionId: string;
  seq: number;
  type: string;
}

export interface ExecutionSideDeps {
  /** This side's connection, for reads (the runs' plans). */
  db: Database.Database;
  /** Commits a unit through a group-commit writer (this thread's, or the other thread's) and resolves after commit. */
  write(unit: WriteUnit): Promise<void>;
  /** Yields to I/O between steps (the service's pacer inline; the same in the worker, where only messages wait). */
  pace: () => Promise<void>;
  /** CPU chunks per execution (turn-work.ts calibration); split over its four steps. */
  chunks: number;
  /** Executions in flight at once; the rest wait in memory (their rows are durable). */
  concurrency: number;
  /** After each materializing commit: how many runs are materialized in all. */
  materialized(through: number): void;
  /** After each unit commits, its event. */
  publish(envelope: Envelope): void;
  completed(): void;
}

export interface ExecutionSide {
  accepted(runIds: readonly string[]): void;
}

type Ready = { sessionId: string; executionId: string };

export function createExecutionSide(deps: ExecutionSideDeps): ExecutionSide {
  const readPlan = deps.db.prepare('SELECT results FROM trigger_runs WHERE id = ?').pluck();
  let incoming: string[] = [];
  let materializing = false;
  let materializedRuns = 0;
  const ready: Ready[] = [];
  let running = 0;

  async function materialize(): Promise<void> {
    materializing = false;
    const runIds = incoming;
    incoming = [];
    const sessions = runIds.flatMap((runId) =>
      (JSON.parse(readPlan.get(runId) as string) as Array<{ automationId: string; sessionId: string }>).map(({ automationId, sessionId }) => ({
        runId, automationId, sessionId, executionId: randomUUID(),
      })),
    );
    await deps.write({ kind: 'materialize', sessions });
    materializedRuns += runIds.length;
    deps.materialized(materializedRuns);
    for (const { sessionId } of sessions) deps.publish({ sessionId, seq: 1, type: 'session.started' });
    ready.push(...sessions);
    startMore();
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

  async function execute({ sessionId, executionId }: Ready): Promise<void> {
    const stepChunks = Math.max(1, Math.round(deps.chunks / STEPS.length));
    for (const [index, type] of STEPS.entries()) {
      await deps.pace();
      const result = turnWork(stepChunks);
      const seq = index + 2; // seq 1 is the session's start, written when it was materialized
      const text = type === 'tool.result' ? '{"id":"c-1","company":"Acme"}' : `Looking up c-1 (${result})`;
      await deps.write({ kind: 'step', type, sessionId, executionId, seq, text });
      deps.publish({ sessionId, seq, type });
    }
  }

  return {
    accepted(runIds) {
      incoming.push(...runIds);
      if (materializing) return;
      materializing = true;
      setImmediate(() => void materialize());
    },
  };
}
