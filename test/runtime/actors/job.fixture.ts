// A small job machine and helpers for the actor and scheduler tests (independent of machines/*); their stores come
// from the test storage mode (test/helpers/test-store.ts), so they run on SQLite and on PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assign, emit, setup } from 'xstate';

export const JOB_VERSION = 1;

export interface JobInput {
  readonly jobId: string;
}

export type JobEvent =
  | { readonly type: 'START'; readonly now: number }
  | { readonly type: 'BOOM'; readonly now: number }
  | { readonly type: 'FINISH'; readonly now: number }
  | { readonly type: 'FAIL'; readonly now: number; readonly reason: string };

export const jobMachine = setup({
  types: {
    input: {} as JobInput,
    context: {} as { jobId: string; steps: number; startedAt: number | null; failure: string | null },
    events: {} as JobEvent,
    emitted: {} as { type: 'job.started'; jobId: string; at: number },
  },
}).createMachine({
  id: 'job',
  initial: 'queued',
  context: ({ input }) => ({ jobId: input.jobId, steps: 0, startedAt: null, failure: null }),
  states: {
    queued: {
      on: {
        START: {
          target: 'running',
          actions: [
            assign(({ context, event }) => ({ startedAt: event.now, steps: context.steps + 1 })),
            emit(({ context, event }) => ({ type: 'job.started' as const, jobId: context.jobId, at: event.now })),
          ],
        },
      },
    },
    running: {
      on: {
        BOOM: { actions: assign(({ context }) => ({ steps: context.steps + 1 })) },
        FINISH: { target: 'finished' },
        FAIL: { target: 'failed', actions: assign(({ event }) => ({ failure: event.reason })) },
      },
    },
    finished: { type: 'final' },
    failed: { type: 'final' },
  },
});

/**
 * A path for `openTestStore(t, { path })` that survives close/reopen (restart tests): a temp file on SQLite, removed
 * at teardown; on PostgreSQL the same path names the same database.
 */
export function tempDbPath(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-actors-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.db');
}

/** Lets queued microtasks and one macrotask turn run (an owner's onFailure is called after the step). */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Waits (at most 5 s of real time) for what the store's round trips make happen: a few loop turns on SQLite, real
 * time on PostgreSQL. The caller asserts `done()` afterwards.
 */
export async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !done() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A logger that keeps what it is told, so tests stay quiet and can assert on warnings. */
export function memoryLogger() {
  const lines: Array<{ level: 'warn' | 'error'; msg: string; obj: object }> = [];
  return {
    lines,
    warn: (obj: object, msg: string) => void lines.push({ level: 'warn', msg, obj }),
    error: (obj: object, msg: string) => void lines.push({ level: 'error', msg, obj }),
  };
}
