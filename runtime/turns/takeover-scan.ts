// N nodes: a periodic scan that dispatches sessions whose owner died (their lease expired) with runnable work.
import type { SessionOwnership } from '../../storage/port/ownership.js';
import type { Logger } from '../logger.js';

/** Orphaned sessions dispatched per scan; the next scan takes the rest. */
const TAKEOVER_PAGE = 256;

/**
 * Starts the scan when the ownership has one (not on one process); returns what stops it, resolving once a scan in
 * flight has ended (its queries must not reach a pool that closes next). A scan never overlaps the previous one, and
 * dispatching a session another node took meanwhile is harmless (its claim fails).
 */
export function startTakeoverScan(
  ownership: SessionOwnership,
  dispatch: (sessionId: string) => void,
  logger: Pick<Logger, 'warn'>,
  /** Runs with every scan (the admission's bound by the database's queued total). */
  alsoEachScan: () => Promise<void> = () => Promise.resolve(),
): () => Promise<void> {
  const { orphans, scanEveryMs } = ownership;
  if (orphans === undefined) return () => Promise.resolve();
  let scanning: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (scanning !== null) return;
    scanning = orphans
      .call(ownership, TAKEOVER_PAGE)
      .then((sessions) => sessions.forEach((sessionId) => dispatch(sessionId)))
      .then(alsoEachScan)
      .catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'takeover scan failed'))
      .finally(() => (scanning = null));
  }, scanEveryMs ?? 5_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await scanning;
  };
}
