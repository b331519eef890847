// The seam between whoever starts work (open session, fire, schedule, event, MCP, partner) and the engines.
import type { Automation } from '../../storage/records/automations.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { StartSessionRequest } from '../turns/engine.js';
import type { PendingStart } from '../execution/materializer.js';

// The start request belongs to the engine seam (turns/engine.ts); re-exported for whoever starts work.
export type { SessionOrigin, StartSessionRequest } from '../turns/engine.js';

export interface PlannedStart {
  sessionId: string;
  executionId: string;
  /**
   * The start as a record the accept commits in its one row and the execution side writes later
   * (runtime/execution/materializer.ts); null when the start carries caller credentials, which are sealed and
   * written with the execution at once (`write`).
   */
  deferred: ((acceptedAt: number) => PendingStart) | null;
  /** Writes the session, its first execution, message/input and sealed grant inside the caller's unit of work (`tx`). */
  write(tx: UnitContext<PortRepositories>): Promise<void>;
  /** Call after `write` committed: hands the queued execution to its engine. */
  dispatch(): void;
}

/** Implemented by the sessions runtime; used by every entry point that starts work. */
export interface SessionStarter {
  /**
   * Checks the target (exists in org, published, runnable kind, entitled) and caller-identity requirements,
   * and plans the rows. Throws AppError for refusals (e.g. CALLER_CREDENTIALS_REQUIRED) before anything is written.
   */
  plan(request: StartSessionRequest, checked?: CheckedTarget): Promise<PlannedStart>;
}

/** A target the caller has already read and found entitled in the request's organization (fire planning). */
export interface CheckedTarget {
  readonly automation: Automation;
  readonly entitled: true;
}
