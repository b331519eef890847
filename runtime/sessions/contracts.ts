// The seam between whoever starts work (open session, fire, schedule, event, MCP, partner) and the engines.
import type { AutomationRow } from '../../storage/repos/automations.repo.js';
import type { StartSessionRequest } from '../turns/engine.js';

// The start request belongs to the engine seam (turns/engine.ts); re-exported for whoever starts work.
export type { SessionOrigin, StartSessionRequest } from '../turns/engine.js';

export interface PlannedStart {
  sessionId: string;
  executionId: string;
  /** Writes the session, its first execution, message/input, sealed grant and actor snapshot. Run it inside a group-commit unit of work. */
  write(): void;
  /** Call after the unit of work committed: hands the queued execution to its engine. */
  dispatch(): void;
}

/** Implemented by the sessions runtime; used by every entry point that starts work. */
export interface SessionStarter {
  /**
   * Checks the target (exists in org, published, runnable kind, entitled) and caller-identity requirements,
   * and plans the rows. Throws AppError for refusals (e.g. CALLER_CREDENTIALS_REQUIRED) before anything is written.
   */
  plan(request: StartSessionRequest, checked?: CheckedTarget): PlannedStart;
}

/** A target the caller has already read and found entitled in the request's organization (fire planning). */
export interface CheckedTarget {
  readonly automation: AutomationRow;
  readonly entitled: true;
}
