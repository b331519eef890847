// tools/call: one turn of the named agent as an ordinary durable session (open, or append with sessionId), then its result.
/*
 * The turn goes through the sessions runtime's conversation service, the same path as the REST routes: rule 1/2
 * permissions, entitlement and caller-credential checks, group-committed rows, the audit trail and the session
 * stream. Only the origin differs (`mcp`). The call then waits for the turn to finish or park (turn-watch.ts).
 */
import type { z } from 'zod';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SessionEventBus } from '../events/index.js';
import type { ConversationService } from '../sessions/conversation.service.js';
import { visibleSession, type Caller } from '../sessions/session-access.js';
import { normalizeCallerCredentials } from '../vault/index.js';
import { AgentToolArguments } from './agent-tool-input.js';
import { resolveAgentTool } from './agent-tools.js';
import { InvalidParamsError } from './invalid-params.js';
import { refusalResult, turnResult, type AgentToolResult, type TurnIds } from './tool-result.js';
import { watchTurn } from './turn-watch.js';

export interface AgentToolCallDeps {
  store: Pick<Storage, 'repos'>;
  clock: Clock;
  bus: SessionEventBus;
  conversations: ConversationService;
  waitMs: number;
}

export interface AgentToolCallRequest {
  name: string;
  arguments?: Record<string, unknown>;
  protocolVersion: string;
  /** Stops waiting (client gone, request cancelled, shutdown); the turn itself carries on. */
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/** zod issues as paths and rules; the submitted values (a message, a credential) are never echoed. */
function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.length ? issue.path.map(String).join('.') : '(arguments)', message: issue.message }));
}

export function createAgentToolCall(deps: AgentToolCallDeps) {
  const { repos } = deps.store;

  /** Queues the turn: a new session, or the next message of one this agent already has. */
  async function queueTurn(caller: Caller, automationId: string, args: AgentToolArguments): Promise<TurnIds | AgentToolResult> {
    const message = {
      message: args.message,
      callerCredentials: args.callerCredentials && normalizeCallerCredentials(args.callerCredentials),
    };
    if (args.sessionId === undefined) {
      // Sessions opened through MCP are personal to the key owner: an assistant's chat is theirs (decisions.md).
      const opened = await deps.conversations.open(caller, automationId, { ...message, origin: 'mcp', visibility: 'personal' });
      // The watch below reads the execution row: wait until the materializer wrote it (the next loop turn).
      await opened.written;
      return { sessionId: opened.sessionId, executionId: opened.executionId };
    }
    const session = await visibleSession(repos, caller, args.sessionId.toLowerCase());
    if (session.automationId !== automationId) {
      return refusalResult('VALIDATION', 'That session belongs to another agent; call that agent\'s tool to continue it.');
    }
    const { executionId } = await deps.conversations.append(caller, session.id, message);
    return { sessionId: session.id, executionId };
  }

  return async function callAgentTool(caller: Caller, request: AgentToolCallRequest): Promise<AgentToolResult> {
    const automation = await resolveAgentTool(repos, caller, request.name);
    if (automation === undefined) throw new InvalidParamsError(`Unknown tool: ${request.name.slice(0, 100)}`);
    const parsed = AgentToolArguments.safeParse(request.arguments ?? {});
    if (!parsed.success) throw new InvalidParamsError('The tool arguments are not valid.', { issues: issuesOf(parsed.error) });

    let queued: TurnIds | AgentToolResult;
    try {
      queued = await queueTurn(caller, automation.id, parsed.data);
    } catch (error) {
      // Refusals the REST routes answer with 4xx are results the calling model can read and act on.
      if (error instanceof AppError && error.code === 'NOT_FOUND') {
        const what = parsed.data.sessionId === undefined ? 'This agent is no longer available to you.' : 'No session with that sessionId is visible to you.';
        return refusalResult('NOT_FOUND', what);
      }
      if (error instanceof AppError && error.status < 500) return refusalResult(error.code, error.message);
      throw error;
    }
    if ('content' in queued) return queued;

    const end = await watchTurn({
      repos,
      bus: deps.bus,
      clock: deps.clock,
      sessionId: queued.sessionId,
      executionId: queued.executionId,
      waitMs: deps.waitMs,
      signal: request.signal,
      onProgress: request.onProgress,
    });
    return turnResult(repos, queued, end, request.protocolVersion);
  };
}

export type AgentToolCall = ReturnType<typeof createAgentToolCall>;
