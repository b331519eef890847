// Lowers the scheduling priority of the calling thread (Linux), so the execution worker yields the core to HTTP.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Raises the calling thread's nice value to `nice` (0–19; never lowers it: that needs privileges). On Linux a
 * priority set on a thread id applies to that thread only (/proc/thread-self names it), so the process's other
 * threads — the HTTP loop among them — keep theirs. Returns the thread's nice value after the call, or null where
 * threads cannot be told apart (not Linux).
 */
export function niceThisThread(nice: number): number | null {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return null;
  }
  if (!Number.isInteger(tid) || tid <= 0) return null;
  const target = Math.min(19, Math.max(0, Math.trunc(nice)));
  if (getPriority(tid) < target) setPriority(tid, target);
  return getPriority(tid);
}
