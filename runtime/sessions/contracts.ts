// The seam between whoever starts work (open session, fire, schedule, event, MCP, partner) and the engines.
import type { AutomationRow } from '../../storage/repos/automations.repo.js';
import type { PendingStart } from '../execution/materializer.js';
import type { NormalizedCallerCredentials } from '../vault/index.js';

/** Where a session came from; recorded on the session for the audit trail. */
export type SessionOrigin = 'api' | 'trigger' | 'schedule' | 'event' | 'mcp' | 'partner';

export interface StartSessionRequest {
  orgId: string;
  automationId: string;
  /** The person the work runs for (null for schedule/event firings: no caller). */
  actorUserId: string | null;
  origin: SessionOrigin;
  /** `personal` chats are visible to their creator only; `domain` sessions to the domain's members. */
  visibility: 'personal' | 'domain';
  /** Agents: the first user message (already trimmed and bounded). Flows: ignored. */
  message?: string;
  /** Flows: the input object, verbatim. Agents: ignored. */
  input?: Record<string, unknown>;
  /** Caller credentials already narrowed to this target's caller-identity integrations. */
  callerCredentials?: NormalizedCallerCredentials;
  /** Epoch ms; custody ends at the earlier of this and the execution settling. */
  callerCredentialExpiresAt?: number;
  triggerRunId?: string;
}

export interface PlannedStart {
  sessionId: string;
  executionId: string;
  /**
   * The start as a record the accept commits in its one row and the execution side writes later
   * (runtime/execution/materializer.ts); null when the start carries caller credentials, which are sealed and
   * written with the execution at once (`write`).
   */
  deferred: ((acceptedAt: number) => PendingStart) | null;
  /** Writes the session, its first execution, message/input and sealed grant now. Run it inside a group-commit unit of work. */
  write(): void;
  /** Call after `write` committed: hands the queued execution to its engine. */
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
