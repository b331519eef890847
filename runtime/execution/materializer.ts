// The execution side's intake: writes the sessions, executions and messages an accept promised, in bulk, after its commit.
/*
 * An accept (a fire, opening a session) commits one row that carries its session starts (trigger_runs.pending,
 * sessions.pending) and answers 202. The accept then hands the starts here; they are written in bulk group-commit
 * units (everything accepted meanwhile, up to MAX_STARTS_PER_UNIT starts a unit), and their sessions are
 * dispatched after that commit. Every id in a 202 stays readable at once: a read that could see a pending start
 * first awaits `writtenSoFar()` (docs/decisions.md "Reading a session that is not written yet"); tests that read
 * the database directly await `catchUp()`, which writes them in a unit of their own submitted now. At boot
 * `recover()` writes every pending row found through the partial indexes before any work starts (a crash between
 * the accept and its materialization).
 * With the execution thread (SWITCHYARD_EXECUTION=thread) this runs in the worker: main's accepts post their
 * sources there (runtime/thread/remote-materializer.ts), and these rows and their dispatch cost the HTTP loop nothing.
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
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
  /**
   * For a read that may name an accepted id: resolves once every start queued so far is written by the units on
   * their way to the group-commit writer, or null when none is waiting (with `sessionId`: when that session is not
   * among them). Nothing is written synchronously.
   */
  writtenSoFar(sessionId?: string): Promise<void> | null;
  /** Writes every queued start in a unit submitted now; resolves once written (at once when none is queued). */
  catchUp(): Promise<void>;
  /** Boot, before work starts: writes every start still pending in the database; returns how many sessions. */
  recover(): Promise<number>;
  /** Resolves once nothing is queued or being written (tests, shutdown). */
  idle(): Promise<void>;
}

export interface MaterializerDeps {
  /** Boot reads of the rows still pending (outside any unit). */
  repos: Pick<PortRepositories, 'triggerRuns' | 'sessions'>;
  writer: Storage['writer'];
  /**
   * Inside a unit (`tx`; its events publish at commit): writes one start's rows (the session row too unless it is the source), false
   * when the start no longer applies (its automation was deleted since: the cascade would have removed the session).
   */
  writeStart(tx: UnitContext<PortRepositories>, start: PendingStart, withSession: boolean): Promise<boolean>;
  /** After commit: hands a written session to its engine. */
  dispatch(sessionId: string): void;
  logger: Pick<Logger, 'error'>;
}

interface Queued {
  readonly source: PendingSource;
  readonly written: () => void;
}

/** One bulk unit: the sources it writes, filled until the unit runs (then sealed), and when it is done. */
interface Chunk {
  entries: Queued[];
  starts: number;
  sealed: boolean;
  finished: Promise<void>;
}

/**
 * Starts per bulk unit: a unit is one savepoint the writer cannot split, so its size is bounded (about 0.07 ms a
 * start under load: 32 keep it near 2 ms). A burst fills several units, all submitted at once, committed in order.
 */
const MAX_STARTS_PER_UNIT = 32;

export function createMaterializer(deps: MaterializerDeps): Materializer {
  const { repos } = deps;
  /** Submitted units not finished yet, oldest first; the last one takes new sources until it runs or is full. */
  const chunks: Chunk[] = [];
  /** Sessions of the queued starts: a read of any other session has nothing to wait for. */
  const pendingSessions = new Set<string>();

  /** Inside a unit: writes the sources whose pending mark is still set; returns the sessions written. */
  async function write(tx: UnitContext<PortRepositories>, sources: readonly PendingSource[]): Promise<string[]> {
    const unitRepos = tx.repos;
    const written: string[] = [];
    for (const source of sources) {
      // A source's pending mark is cleared in the unit that writes it, so a source handed over twice (boot recovery
      // and a message to the execution thread that raced it) is written once. A session row that is gone was deleted
      // (its first turn goes with it). A run row that is gone was deleted with its trigger: its sessions are still
      // written, as they outlive their trigger once written; a run already written has its sessions (all of them
      // were written in one unit, so the first tells).
      if (source.kind === 'run') {
        const first = source.starts[0];
        if (!(await unitRepos.triggerRuns.clearPending(source.id)) && first !== undefined && (await unitRepos.sessions.session(first.sessionId)) !== undefined) continue;
      } else if (!(await unitRepos.sessions.clearPending(source.id))) continue;
      for (const start of source.starts) {
        if (await deps.writeStart(tx, start, source.kind === 'run')) written.push(start.sessionId);
      }
    }
    return written;
  }

  /** One unit writing `sources` (a rerun writes the same sources: their pending marks make it idempotent). */
  const writeUnit = (sources: () => readonly PendingSource[], options?: { savepoint: false }): Promise<string[]> =>
    deps.writer.submit((tx) => write(tx, sources()), options);

  const dispatchAll = (sessionIds: readonly string[]): void => sessionIds.forEach((id) => deps.dispatch(id));

  const sourcesOf = (entries: readonly Queued[]) => entries.map((entry) => entry.source);
  const settle = (entries: readonly Queued[]): void =>
    entries.forEach((entry) => {
      for (const start of entry.source.starts) pendingSessions.delete(start.sessionId);
      entry.written();
    });

  const failed = (error: unknown, source?: PendingSource): void =>
    deps.logger.error({ source: source?.id, err: error instanceof Error ? error.message : String(error) }, 'materializing accepted work failed');

  /**
   * Submits one unit for a new chunk; the chunk is sealed when the unit first runs (a rerun of the unit writes the
   * same sources). If the unit fails, each source is retried in a unit of its own, so one bad start cannot hold the
   * others back; a source that still fails stays pending in the database (logged, written at the next boot).
   */
  function openChunk(): Chunk {
    const chunk: Chunk = { entries: [], starts: 0, sealed: false, finished: Promise.resolve() };
    const sealed = (): readonly PendingSource[] => {
      chunk.sealed = true;
      return sourcesOf(chunk.entries);
    };
    chunk.finished = writeUnit(sealed, { savepoint: false })
      .then(dispatchAll, async (error: unknown) => {
        failed(error);
        await Promise.all(sourcesOf(chunk.entries).map((source) => writeUnit(() => [source]).then(dispatchAll, (e: unknown) => failed(e, source))));
      })
      .finally(() => {
        settle(chunk.entries);
        chunks.splice(chunks.indexOf(chunk), 1);
      });
    chunks.push(chunk);
    return chunk;
  }

  /** Writes `sources` in one unit now; on failure, one unit each (a failing one is logged and left pending). */
  async function writeNow(sources: readonly PendingSource[]): Promise<string[]> {
    try {
      return await writeUnit(() => sources);
    } catch (error) {
      failed(error);
      const each = await Promise.all(sources.map((source) => writeUnit(() => [source]).catch((e: unknown) => (failed(e, source), [] as string[]))));
      return each.flat();
    }
  }

  return {
    accepted(source) {
      if (source.starts.length === 0) return Promise.resolve();
      let chunk = chunks.at(-1);
      if (chunk === undefined || chunk.sealed || (chunk.starts > 0 && chunk.starts + source.starts.length > MAX_STARTS_PER_UNIT)) chunk = openChunk();
      chunk.starts += source.starts.length;
      for (const start of source.starts) pendingSessions.add(start.sessionId);
      return new Promise<void>((written) => chunk.entries.push({ source, written }));
    },
    writtenSoFar(sessionId) {
      if (sessionId !== undefined && !pendingSessions.has(sessionId)) return null;
      // Units commit in submission order: once the newest is done, every source queued before it is written.
      return chunks.at(-1)?.finished ?? null;
    },
    async catchUp() {
      // Units already running are awaited: on SQLite a sealed unit has committed by now, but on PostgreSQL it may
      // still be waiting on the server, and returning before it would let a caller read rows not yet written.
      const running = Promise.all(chunks.filter((chunk) => chunk.sealed).map((chunk) => chunk.finished));
      // The sources of units that have not run yet are written here; their units then find nothing to write.
      const waiting = chunks.filter((chunk) => !chunk.sealed && chunk.entries.length > 0);
      if (waiting.length === 0) return void (await running);
      const taken = waiting.flatMap((chunk) => {
        const entries = chunk.entries;
        chunk.entries = [];
        return entries;
      });
      try {
        dispatchAll(await writeNow(sourcesOf(taken)));
      } finally {
        settle(taken);
      }
      await running;
    },
    async recover() {
      const runs = await repos.triggerRuns.pendingRuns();
      const sessions = await repos.sessions.pendingSessions();
      const sources: PendingSource[] = [
        ...runs.map((row) => ({ kind: 'run' as const, id: row.id, starts: row.pending as PendingStart[] })),
        ...sessions.map((row) => ({ kind: 'session' as const, id: row.id, starts: [row.pending as PendingStart] })),
      ];
      // Dispatch is left to the dispatcher's own recovery, which runs next and finds these executions queued.
      return sources.length === 0 ? 0 : (await writeNow(sources)).length;
    },
    async idle() {
      while (chunks.length > 0) await chunks.at(-1)!.finished;
    },
  };
}
