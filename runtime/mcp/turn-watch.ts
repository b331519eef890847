// Waits on the session event bus until one turn completes, fails or parks for approval, reporting progress meanwhile.
/*
 * The bus, not polling: subscribing "from now" right after the turn was queued sees every later event, and the
 * execution row is read once at subscription, so a turn that already moved is not missed (rows and events commit
 * together). The row, not the event, is the authority on where the turn is.
 */
import type { PortRepositories } from '../../storage/port/storage.js';
import type { ExecutionStatus } from '../../storage/records/executions.js';
import type { Clock } from '../clock.js';
import type { SessionEvent, SessionEventBus, SessionEventEnvelope } from '../events/index.js';
import { clockDeadline } from '../turns/turn-budget.js';

/** Why the wait ended: the turn settled or parked, it queues behind a parked turn, time ran out, or the caller left. */
export type TurnWatchReason = 'settled' | 'suspended' | 'blocked' | 'timeout' | 'aborted';

export interface TurnWatchEnd {
  status: ExecutionStatus;
  reason: TurnWatchReason;
}

export interface TurnWatchOptions {
  repos: Pick<PortRepositories, 'executions'>;
  bus: SessionEventBus;
  clock: Clock;
  sessionId: string;
  executionId: string;
  /** How long to wait on the injected clock before answering with where the turn is. */
  waitMs: number;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

const SETTLED: ReadonlySet<ExecutionStatus> = new Set(['completed', 'failed', 'rejected']);

/** A short line per event of this turn, for notifications/progress; null for events not worth one. */
export function progressMessage(event: SessionEvent, state: { writing: boolean }): string | null {
  switch (event.type) {
    case 'turn.started':
      return event.resumed ? 'Turn resumed' : 'Turn started';
    case 'tool_call.started':
      return `Calling ${event.toolName}`;
    case 'tool_call.finished':
      return `${event.toolName} ${event.status}${event.errorCode ? ` (${event.errorCode})` : ''}`;
    case 'caller_credential.failed':
      return `Caller credential for ${event.integrationId}: ${event.code}`;
    case 'budget.failed':
      return `Turn budget used up: ${event.budget}`;
    case 'file.added':
      return `File added: ${event.name}`;
    case 'message.delta':
      if (state.writing) return null;
      state.writing = true;
      return 'Writing the answer';
    case 'turn.suspended':
      return `Waiting for approval of ${event.toolName}`;
    case 'turn.completed':
      return `Turn ${event.outcome}`;
    default:
      return null;
  }
}

export function watchTurn(options: TurnWatchOptions): Promise<TurnWatchEnd> {
  const { repos, bus, clock, sessionId, executionId } = options;

  const statusNow = async (): Promise<ExecutionStatus> => (await repos.executions.execution(executionId))?.status ?? 'failed';

  /** Where the turn stands, or null to keep waiting. */
  async function verdict(): Promise<TurnWatchReason | null> {
    const status = await statusNow();
    if (SETTLED.has(status)) return 'settled';
    if (status === 'suspended') return 'suspended';
    if (status === 'queued') {
      // Queued behind a turn that waits for approval: nothing moves until someone decides, so answer now.
      const first = await repos.executions.firstUnsettled(sessionId);
      if (first !== undefined && first.id !== executionId && first.status === 'suspended') return 'blocked';
    }
    return null;
  }

  return new Promise<TurnWatchEnd>((resolve, reject) => {
    let finished = false;
    const writing = { writing: false };
    const deadline = clockDeadline(clock, clock.now() + options.waitMs);
    let subscription: { unsubscribe(): void } | null = null;

    /** Stops watching; true for the first caller only. */
    const stop = (): boolean => {
      if (finished) return false;
      finished = true;
      subscription?.unsubscribe();
      deadline.dispose();
      deadline.signal.removeEventListener('abort', onTimeout);
      options.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const finish = (reason: TurnWatchReason): void => {
      if (stop()) statusNow().then((status) => resolve({ status, reason }), reject);
    };
    const fail = (error: unknown): void => {
      if (stop()) reject(error);
    };
    /** Reads where the turn stands (the row) and finishes when it settled or parked. */
    const check = (): void => {
      verdict().then((reason) => {
        if (reason !== null) finish(reason);
      }, fail);
    };
    const onTimeout = (): void => finish('timeout');
    const onAbort = (): void => finish('aborted');

    bus.subscribe(sessionId, null, (events: readonly SessionEventEnvelope[]) => {
      if (finished) return;
      for (const { event } of events) {
        if (options.onProgress && 'executionId' in event && event.executionId === executionId) {
          const message = progressMessage(event, writing);
          if (message !== null) options.onProgress(message);
        }
      }
      check();
    }).then((taken) => {
      // Finished while subscribing: nothing more to watch.
      if (finished) taken.unsubscribe();
      else subscription = taken;
    }, fail);

    deadline.signal.addEventListener('abort', onTimeout);
    options.signal?.addEventListener('abort', onAbort);
    if (deadline.signal.aborted) return finish('timeout');
    if (options.signal?.aborted) return finish('aborted');
    check();
  });
}
