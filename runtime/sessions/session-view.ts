// Read models of a session: the GET body (flags, messages with authors, tool calls, files, pending approval) and the stream snapshot.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Session, SessionOutcome, VisibleMessage } from '../../storage/records/sessions.js';
import type { ToolCall } from '../../storage/records/executions.js';
import { toIso } from '../clock.js';
import type { PendingApprovalView, SnapshotPayload, TurnStatus } from '../events/index.js';
import { redactCredentialMaterial } from '../events/index.js';
import { participation, type Caller, type ReadOnlyReason } from './session-access.js';

type Repos = Pick<PortRepositories, 'sessions' | 'executions' | 'approvals' | 'tenancy' | 'automations'>;

export interface MessageView {
  messageId: string;
  executionId: string | null;
  role: 'user' | 'assistant';
  text: string;
  createdAt: string;
  /** Absent for machine messages (assistant answers, trigger and schedule prompts). */
  author?: { userId: string; name: string | null; isYou: boolean };
}

export interface SessionView {
  sessionId: string;
  automationId: string;
  domainId: string;
  visibility: 'personal' | 'domain';
  status: string;
  /** Where it was opened: api, trigger, schedule, event, mcp, partner. */
  origin: string;
  title: string | null;
  outcome: SessionOutcome | null;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  canParticipate: boolean;
  canManage: boolean;
  readOnlyReason: ReadOnlyReason | null;
  latestTurn: { executionId: string; status: TurnStatus; errorCode: string | null } | null;
  messages: MessageView[];
  toolCalls: Array<{
    toolCallId: string;
    executionId: string;
    toolName: string;
    args: unknown;
    edited: boolean;
    status: string;
    identity: 'caller' | 'organization' | null;
    errorCode: string | null;
  }>;
  files: Array<{ fileId: string; executionId: string | null; name: string; mediaType: string; sizeBytes: number }>;
  pendingApproval: PendingApprovalView | null;
  pendingApprovalId: string | null;
}

export type ToolCallView = SessionView['toolCalls'][number];

/** One message as people read it; `isYou` is relative to the caller (rule 3). */
export function messageView(caller: Caller, m: VisibleMessage): MessageView {
  return {
    messageId: m.id,
    executionId: m.executionId,
    role: m.role as 'user' | 'assistant',
    text: m.content,
    createdAt: toIso(m.createdAt),
    ...(m.authorUserId === null ? {} : { author: { userId: m.authorUserId, name: m.authorName, isYou: m.authorUserId === caller.userId } }),
  };
}

/** One tool call of the audit trail; arguments pass the credential redactor. */
export function toolCallView(c: ToolCall): ToolCallView {
  return {
    toolCallId: c.id,
    executionId: c.executionId,
    toolName: c.tool,
    args: redactCredentialMaterial(c.args),
    edited: c.edited,
    status: c.status,
    identity: c.identity,
    errorCode: c.errorCode,
  };
}

export async function pendingApprovalView(repos: Repos, sessionId: string): Promise<PendingApprovalView | null> {
  const approval = await repos.approvals.pendingOfSession(sessionId);
  if (approval === undefined) return null;
  return redactCredentialMaterial({
    approvalId: approval.id,
    executionId: approval.executionId,
    toolCallId: approval.toolCallId,
    toolName: approval.tool ?? '',
    args: (approval.args ?? {}) as Record<string, unknown>,
    requestedAt: toIso(approval.createdAt),
  });
}

export async function latestTurn(repos: Repos, sessionId: string): Promise<SessionView['latestTurn']> {
  const execution = await repos.executions.latestExecution(sessionId);
  return execution === undefined ? null : { executionId: execution.id, status: execution.status, errorCode: execution.errorCode };
}

/** The stream's opening state (http/sse.ts): latest turn and the approval it waits for, if any. */
export async function streamSnapshot(repos: Repos, sessionId: string): Promise<SnapshotPayload> {
  const turn = await latestTurn(repos, sessionId);
  const pendingApproval = await pendingApprovalView(repos, sessionId);
  return { turn: turn && { executionId: turn.executionId, status: turn.status }, pendingApproval, pendingApprovalId: pendingApproval?.approvalId ?? null };
}

/** Rule 3: the flags describe the current caller; `isYou` is relative to the caller too. */
export async function sessionView(repos: Repos, caller: Caller, session: Session): Promise<SessionView> {
  const flags = await participation(repos, caller, session);
  const pendingApproval = await pendingApprovalView(repos, session.id);
  const turn = await latestTurn(repos, session.id);
  const messages = await repos.sessions.visibleMessages(session.id);
  const toolCalls = await repos.executions.toolCallsOfSession(session.id);
  const files = await repos.sessions.files(session.id);
  return {
    sessionId: session.id,
    automationId: session.automationId,
    domainId: session.domainId,
    visibility: session.visibility,
    status: session.status,
    origin: session.origin,
    title: session.title,
    outcome: session.outcome,
    archivedAt: session.archivedAt === null ? null : toIso(session.archivedAt),
    createdAt: toIso(session.createdAt),
    updatedAt: toIso(session.updatedAt),
    ...flags,
    latestTurn: turn,
    messages: messages.map((m) => messageView(caller, m)),
    toolCalls: toolCalls.map(toolCallView),
    files: files.map((f) => ({ fileId: f.id, executionId: f.executionId, name: f.name, mediaType: f.mediaType, sizeBytes: f.sizeBytes })),
    pendingApproval,
    pendingApprovalId: pendingApproval?.approvalId ?? null,
  };
}
