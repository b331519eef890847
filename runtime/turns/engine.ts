// The engine seam: one engine per automation kind (agent turns here, flows by the flow runtime) behind the dispatcher.
import type { Automation, AutomationKind } from '../../storage/records/automations.js';
import type { ExecutionStatus } from '../../storage/records/executions.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { SessionEventEnvelope } from '../events/index.js';
import type { IntegrationBinding, NormalizedCallerCredentials } from '../vault/index.js';

/** Where a session came from; recorded on the session for the audit trail (`console`: the Run and Test run buttons). */
export type SessionOrigin = 'api' | 'trigger' | 'schedule' | 'event' | 'mcp' | 'partner' | 'console';

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

/** What an engine settled on when it accepted a start: the version it runs and the bindings credentials narrow to. */
export interface AdmittedStart {
  /** Agent revision or flow version the execution is pinned to. */
  readonly revision: number;
  /** Per-integration identity modes (the belt), for narrowing and the caller-credential refusal. */
  readonly bindings: readonly IntegrationBinding[];
}

/** Everything an engine writes its own rows from, inside the unit of work that writes the session and execution. */
export interface EngineStart {
  readonly sessionId: string;
  readonly executionId: string;
  readonly automation: Automation;
  readonly revision: number;
  /** `open`: the session's first execution; `message`: a later one appended to it. */
  readonly entry: 'open' | 'message';
  readonly request: StartSessionRequest;
  readonly now: number;
}

/** One unsettled execution handed to its engine; the dispatcher runs one at a time per session, in position order. */
export interface QueuedExecution {
  readonly executionId: string;
  readonly sessionId: string;
  readonly orgId: string;
  readonly automationId: string;
  /** As stored when picked up: `queued`, `resume_queued`, or `running` after a restart. */
  readonly status: ExecutionStatus;
}

export interface SessionEngine {
  /**
   * Refusals that must happen before anything is written (unpublished target, missing message, invalid input),
   * thrown as AppError. Runs inside SessionStarter.plan(), before any unit of work.
   */
  admit(request: StartSessionRequest, automation: Automation): Promise<AdmittedStart>;
  /**
   * Writes the engine's own rows for a queued execution (message or input, actor snapshot) inside the caller's
   * unit of work (`tx`), after the session and execution rows. Returns stored events, published after commit.
   */
  writeStart(tx: UnitContext<PortRepositories>, start: EngineStart): Promise<SessionEventEnvelope[]>;
  /**
   * Runs the execution until it settles or parks on an approval, recording its own outcome. `signal` aborts on
   * shutdown: the engine then stops without recording anything, and boot recovery picks the execution up again.
   * A throw is logged and leaves the session's queue where it is until the next dispatch.
   */
  run(execution: QueuedExecution, signal: AbortSignal): Promise<void>;
}

export type EngineKind = AutomationKind;
