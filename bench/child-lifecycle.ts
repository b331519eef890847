// The child side of the runner's process protocol: one JSON line on stdout when ready, and exit with the parent.
import { loadNativeUws, type Uws } from '../http/uws-native.js';

/** Writes the one line the runner waits for (a server's ServerReady, or the client's result). */
export function announce(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/**
 * Runs `shutdown` then exits on SIGTERM/SIGINT, or when stdin closes: the runner keeps stdin
 * open as a lifeline, so a child never outlives a runner that was killed outright.
 */
export function exitWithParent(shutdown: () => unknown = () => undefined): void {
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      await shutdown();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  process.stdin.once('end', () => void stop());
  process.stdin.once('close', () => void stop());
  process.stdin.resume();
}

/** A uWS baseline measures the native binary or nothing: without one (Node 22/24) it exits with the reason. */
export function requireNativeUws(name: string): Uws {
  const load = loadNativeUws();
  if (load.ok) return load.uws;
  process.stderr.write(`${name}: ${load.reason}\n`);
  process.exit(1);
}
