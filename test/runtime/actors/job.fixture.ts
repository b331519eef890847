// A small job machine and store fixtures for the actor runtime tests (independent of machines/*).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assign, emit, setup } from 'xstate';
import { openStore, type Store } from '../../../storage/store.js';

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

/** A temp-file database that survives close/reopen (restart tests); removed at teardown. */
export function tempDbPath(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-actors-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.db');
}

export function openTestStore(t: { teardown(fn: () => void): void }, path = ':memory:'): Store {
  const store = openStore({ path });
  t.teardown(() => store.close());
  return store;
}

/** Lets queued microtasks and one macrotask turn run (an owner's onFailure is called after the step). */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A logger that keeps what it is told, so tests stay quiet and can assert on warnings. */
export function memoryLogger() {
  const lines: Array<{ level: 'warn' | 'error'; msg: string; obj: object }> = [];
  return {
    lines,
    warn: (obj: object, msg: string) => void lines.push({ level: 'warn', msg, obj }),
    error: (obj: object, msg: string) => void lines.push({ level: 'error', msg, obj }),
  };
}
