// The execution side's intake: writes the sessions, executions and messages an accept promised, in bulk, after its commit.
/*
 * An accept (a fire, opening a session) commits one row that carries its session starts (trigger_runs.pending,
 * sessions.pending) and answers 202. The accept then hands the starts here; they are written on the next turn of
 * the event loop as ONE group-commit unit for everything accepted meanwhile, and their sessions are dispatched
 * after that commit. Every id in a 202 stays readable at once: a read that could see a pending start calls
 * `catchUp()`, which writes whatever is still queued synchronously, in its own transaction, before the read runs
 * (docs/decisions.md "Reading a session that is not written yet"). At boot `recover()` writes every pending row
 * found through the partial indexes before any work starts (a crash between the accept and its materialization).
 * This is the seam the planned worker thread takes over: it owns this queue and posts a materialized-through mark.
 */
import type { GroupCommitWriter } from '../../storage/group-commit.js';
import type { Repositories } from '../../storage/repos/index.js';
import type { Logger } from '../logger.js';

/** One session start as recorded at accept: everything its session, execution and first message are written from. */
export interface PendingStart {
  readonly sessionId: string;
  readonly executionId: string;
  readonly orgId: string;
  readonly domainId: string;
  readonly automationId: string;
  /** Agent revision or flow version the execution is pinned to. */
  readonly revision: number;
  readonly visibility: 'personal' | 'domain';
  readonly origin: string;
  readonly actorUserId: string | null;
  readonly triggerRunId?: string;
  /** Agents: the first user message. */
  readonly message?: string;
  /** Flows: the input object. */
  readonly input?: Record<string, unknown>;
  /** The accept's commit time: the session's creation time. */
  readonly acceptedAt: number;
}

/** Where starts are recorded until written: a fire's run row, or an opened session's own row. */
export interface PendingSource {
  readonly kind: 'run' | 'session';
  readonly id: string;
  readonly starts: readonly PendingStart[];
}

export interface Materializer {
  /** After the accept committed (before its answer): queues its starts for the next unit; resolves once they are written. */
  accepted(source: PendingSource): Promise<void>;
  /** Writes every queued start now, synchronously; a no-op when none is queued or inside a transaction. */
  catchUp(): void;
  /** Boot, before work starts: writes every start still pending in the database; returns how many sessions. */
  recover(): number;
  /** Resolves once nothing is queued or being written (tests, shutdown). */
  idle(): Promise<void>;
}

export interface MaterializerDeps {
  repos: Pick<Repositories, 'triggerRuns' | 'sessions'>;
  writer: GroupCommitWriter;
  /** Runs `work` in its own transaction now (store.transaction). */
  transaction<T>(work: () => T): T;
  inTransaction(): boolean;
  /**
   * Inside a unit: writes one start's rows (the session row too unless it is the source), returning false when
   * the start no longer applies (its automation was deleted since: the cascade would have removed the session).
   */
  writeStart(start: PendingStart, withSession: boolean): boolean;
  /** After commit: hands a written session to its engine. */
  dispatch(sessionId: string): void;
  logger: Pick<Logger, 'error'>;
}

interface Queued {
  readonly source: PendingSource;
  readonly written: () => void;
}

export function createMaterializer(deps: MaterializerDeps): Materializer {
  const { repos } = deps;
  /** Queued sources, each with the resolver of its `accepted()` promise. */
  let queue: Queued[] = [];
  let scheduled: Promise<void> | null = null;

  /** Inside a transaction: writes the sources whose pending mark is still set; returns the sessions written. */
  function write(sources: readonly PendingSource[]): string[] {
    const written: string[] = [];
    for (const source of sources) {
      // A source is written once: the queue hands each to one writer, and boot reads only rows still pending.
      // A session row that is gone was deleted (its first turn goes with it). A run row that is gone was deleted
      // with its trigger: its sessions are still written, as they outlive their trigger once written.
      if (source.kind === 'run') repos.triggerRuns.clearPending(source.id);
      else if (!repos.sessions.clearPending(source.id)) continue;
      for (const start of source.starts) {
        if (deps.writeStart(start, source.kind === 'run')) written.push(start.sessionId);
      }
    }
    return written;
  }

  const dispatchAll = (sessionIds: readonly string[]): void => sessionIds.forEach((id) => deps.dispatch(id));

  function take(): Queued[] {
    const taken = queue;
    queue = [];
    return taken;
  }
  const sourcesOf = (entries: readonly Queued[]) => entries.map((entry) => entry.source);
  const settle = (entries: readonly Queued[]) => entries.forEach((entry) => entry.written());

  const failed = (error: unknown, source?: PendingSource): void =>
    deps.logger.error({ source: source?.id, err: error instanceof Error ? error.message : String(error) }, 'materializing accepted work failed');

  /**
   * One unit for everything queued when it runs (taken once, so a rerun of the unit writes the same sources). If
   * it fails, each source is retried in a unit of its own, so one bad start cannot hold the others back; a source
   * that still fails stays pending in the database (logged, written at the next boot).
   */
  function schedule(): void {
    if (scheduled !== null) return;
    let taken: Queued[] | null = null;
    scheduled = deps.writer
      .submit(() => write(sourcesOf((taken ??= take()))), { savepoint: false })
      .then(dispatchAll, async (error: unknown) => {
        failed(error);
        await Promise.all(sourcesOf(taken ?? []).map((source) => deps.writer.submit(() => write([source])).then(dispatchAll, (e: unknown) => failed(e, source))));
      })
      .finally(() => {
        settle(taken ?? []);
        scheduled = null;
        if (queue.length > 0) schedule();
      });
  }

  /** Writes `sources` in one transaction now; on failure, one transaction each (a failing one is logged and left pending). */
  function writeNow(sources: readonly PendingSource[]): string[] {
    try {
      return deps.transaction(() => write(sources));
    } catch (error) {
      failed(error);
      return sources.flatMap((source) => {
        try {
          return deps.transaction(() => write([source]));
        } catch (e) {
          failed(e, source);
          return [];
        }
      });
    }
  }

  return {
    accepted(source) {
      if (source.starts.length === 0) return Promise.resolve();
      return new Promise<void>((written) => {
        queue.push({ source, written });
        schedule();
      });
    },
    catchUp() {
      if (queue.length === 0 || deps.inTransaction()) return;
      const taken = take();
      dispatchAll(writeNow(sourcesOf(taken)));
      settle(taken);
    },
    recover() {
      const sources: PendingSource[] = [
        ...repos.triggerRuns.pendingRuns().map((row) => ({ kind: 'run' as const, id: row.id, starts: JSON.parse(row.pending) as PendingStart[] })),
        ...repos.sessions.pendingSessions().map((row) => ({ kind: 'session' as const, id: row.id, starts: [JSON.parse(row.pending) as PendingStart] })),
      ];
      // Dispatch is left to the dispatcher's own recovery, which runs next and finds these executions queued.
      return sources.length === 0 ? 0 : writeNow(sources).length;
    },
    async idle() {
      while (scheduled !== null) await scheduled;
    },
  };
}
