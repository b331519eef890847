// Which node runs a session's turns: the port the dispatcher claims a session through, and the one-process default.
/*
 * On SQLite one process runs everything, so a session is always this node's (`soleOwnership`: no statement, no
 * timer). On PostgreSQL a claim is a lease `session:<id>` with a fencing token (storage/postgres/session-ownership.ts):
 * units of work submitted inside `claim.run` are refused once the lease was lost. Decision "One node runs a session's
 * turns (issue 16 item 2)".
 */
import { setMaxListeners } from 'node:events';

export interface SessionClaim {
  /**
   * Runs `work` as the session's owner: on PostgreSQL every unit it submits checks the lease's token first, so a node
   * that lost the session can no longer write its trail.
   */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Aborted when the claim was lost (renewal failed or another node took over): stop running the session. */
  readonly lost: AbortSignal;
  /** Gives the session up (the next node need not wait for expiry). */
  release(): Promise<void>;
}

export interface SessionOwnership {
  /** The session's claim when it is free, expired or already ours; null while another node holds it. */
  claim(sessionId: string): Promise<SessionClaim | null>;
  /**
   * Takes the session even from a live owner on another node (a cancel arriving here for a turn running there): the
   * old owner's later units are refused and it is told at once (`revoked` on that node). Already held here: this
   * node's claim, whose release() then leaves it held. Absent on one process (actor locks order a cancel there).
   */
  seize?(sessionId: string): Promise<SessionClaim>;
  /** Another node seized the session: a claim held here checks its lease now and, finding it gone, is lost. */
  revoked?(sessionId: string): void;
  /**
   * Sessions with runnable work whose owner is gone (no lease, or an expired one), at most `limit`: the takeover
   * scan dispatches them. Absent on one process (boot recovery covers it).
   */
  orphans?(limit: number): Promise<string[]>;
  /** How often a node scans for orphans (ms). */
  readonly scanEveryMs?: number;
  /** Stops heartbeats; claims still held are left to expire (a stopping node's runs are aborted anyway). */
  close?(): Promise<void>;
}

const never = new AbortController().signal;
// Every running execution of this process listens on it while it runs (the listener is removed after): not a leak.
setMaxListeners(0, never);

const held: SessionClaim = {
  run: (work) => work(),
  lost: never,
  release: () => Promise.resolve(),
};

/** One process: every session is this node's; no write, no timer. */
export const soleOwnership: SessionOwnership = {
  claim: () => Promise.resolve(held),
};
