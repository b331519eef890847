// Turns where a turn ended up into an MCP CallToolResult: the answer as text, plus sessionId/executionId/status.
/*
 * Everything is read back from the rows (messages, tool calls, the pending approval), the same read models the
 * REST session view uses, so an MCP caller and a REST reader see one story. Errors are codes, never upstream
 * messages (those can quote secrets): the same rule as the session stream.
 */
import type { PortRepositories } from '../../storage/port/storage.js';
import { pendingApprovalView } from '../sessions/session-view.js';
import type { ToolCallStatus } from './agent-tool-input.js';
import type { TurnWatchEnd } from './turn-watch.js';

type Repos = Pick<PortRepositories, 'sessions' | 'executions' | 'approvals' | 'tenancy' | 'automations'>;

export interface TextContent {
  type: 'text';
  text: string;
}

/** The protocol's CallToolResult as this server fills it. */
export interface AgentToolResult {
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface TurnIds {
  sessionId: string;
  executionId: string;
}

/** structuredContent exists from protocol 2025-06-18; older sessions get the same facts as a JSON text block only. */
function finish(main: string, structured: Record<string, unknown>, isError: boolean, protocolVersion: string): AgentToolResult {
  const result: AgentToolResult = {
    // The JSON block is what the spec asks of structured results for clients that only read text.
    content: [
      { type: 'text', text: main },
      { type: 'text', text: JSON.stringify(structured) },
    ],
  };
  if (protocolVersion >= '2025-06-18') result.structuredContent = structured;
  if (isError) result.isError = true;
  return result;
}

export async function turnResult(repos: Repos, ids: TurnIds, end: TurnWatchEnd, protocolVersion: string): Promise<AgentToolResult> {
  const { sessionId, executionId } = ids;
  const [execution, messages, toolCalls] = await Promise.all([
    repos.executions.execution(executionId),
    repos.sessions.visibleMessages(sessionId),
    repos.executions.toolCallsOfSession(sessionId),
  ]);
  const status = (execution?.status ?? end.status) as ToolCallStatus;
  const answer = messages
    .filter((m) => m.executionId === executionId && m.role === 'assistant')
    .map((m) => m.content)
    .join('\n\n');
  const failedCalls = toolCalls.filter((c) => c.executionId === executionId && c.status === 'failed');
  const structured: Record<string, unknown> = { sessionId, executionId, status };
  const errorCode = execution?.errorCode ?? failedCalls[0]?.errorCode ?? null;
  if (errorCode !== null && (status === 'failed' || failedCalls.length > 0)) structured.errorCode = errorCode;

  const sessionPath = `/api/v1/agents/sessions/${sessionId}`;
  switch (status) {
    case 'completed':
      // A tool that failed inside a finished turn still makes the result an error: the answer is built on a failure.
      return finish(answer || 'The agent finished the turn without an answer.', structured, failedCalls.length > 0, protocolVersion);
    case 'failed':
      return finish([answer, `The turn failed (${errorCode ?? 'TURN_FAILED'}).`].filter(Boolean).join('\n\n'), structured, true, protocolVersion);
    case 'rejected':
      return finish([answer, 'The turn was rejected at its approval.'].filter(Boolean).join('\n\n'), structured, true, protocolVersion);
    case 'suspended': {
      const pending = await pendingApprovalView(repos, sessionId);
      if (pending !== null && pending.executionId === executionId) {
        structured.approvalId = pending.approvalId;
        structured.pendingTool = pending.toolName;
      }
      const text = [
        answer,
        `The turn is waiting for approval before it runs ${pending?.toolName ?? 'a tool'} (approvalId ${pending?.approvalId ?? 'unknown'}).`,
        `An approver decides with POST ${sessionPath}/turn-approval; the turn then resumes and its answer appears in GET ${sessionPath}.`,
      ];
      return finish(text.filter(Boolean).join('\n\n'), structured, false, protocolVersion);
    }
    default: {
      const waiting =
        end.reason === 'blocked'
          ? `The message is queued behind an earlier turn that waits for approval (approvalId ${(await pendingApprovalView(repos, sessionId))?.approvalId ?? 'unknown'}); it runs once that is decided.`
          : `The turn is still ${status.replace('_', ' ')}; it continues in the background.`;
      return finish(`${waiting} Its answer will appear in GET ${sessionPath}.`, structured, false, protocolVersion);
    }
  }
}

/** A refusal before any turn was queued (permissions, caller credentials, a closed session): a tool error, not a protocol one. */
export function refusalResult(code: string, message: string): AgentToolResult {
  return { content: [{ type: 'text', text: `${message} (${code})` }], isError: true };
}
