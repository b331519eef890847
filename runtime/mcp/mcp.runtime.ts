// Composes the MCP endpoint's runtime: protocol sessions, the agent tool catalog and tool calls, and their shutdown.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { ServiceConfig } from '../config.js';
import type { SessionEventBus } from '../events/index.js';
import type { Caller } from '../sessions/session-access.js';
import type { SessionsRuntime } from '../sessions/sessions.runtime.js';
import { createAgentToolCall, type AgentToolCallRequest } from './agent-tool-call.js';
import { listAgentTools, type ToolPage } from './agent-tools.js';
import { createMcpSessionStore, type McpSessionStore } from './mcp-session-store.js';
import { originAllowList } from './origins.js';
import type { AgentToolResult } from './tool-result.js';

export interface McpRuntimeDeps {
  config: Pick<ServiceConfig, 'mcpAllowedOrigins' | 'mcpSessionIdleMs' | 'mcpMaxSessions' | 'mcpMaxSessionsPerKey' | 'mcpCallWaitMs' | 'mcpToolsPageSize'>;
  clock: Clock;
  store: Pick<Storage, 'repos'>;
  bus: SessionEventBus;
  sessions: Pick<SessionsRuntime, 'conversations'>;
}

export interface McpRuntime {
  readonly sessions: McpSessionStore;
  /** Normalized SWITCHYARD_MCP_ALLOWED_ORIGINS. */
  readonly allowedOrigins: ReadonlySet<string>;
  listTools(caller: Caller, options: { cursor?: string; protocolVersion: string }): Promise<ToolPage>;
  callTool(caller: Caller, request: AgentToolCallRequest): Promise<AgentToolResult>;
  /** Shutdown: every waiting tools/call answers with where its turn is (the turns resume at the next boot). */
  stop(): void;
}

export function createMcpRuntime(deps: McpRuntimeDeps): McpRuntime {
  const { config, clock, store } = deps;
  const sessions = createMcpSessionStore({
    clock,
    idleMs: config.mcpSessionIdleMs,
    maxSessions: config.mcpMaxSessions,
    maxPerCredential: config.mcpMaxSessionsPerKey,
  });
  const callAgentTool = createAgentToolCall({ store, clock, bus: deps.bus, conversations: deps.sessions.conversations, waitMs: config.mcpCallWaitMs });
  const stopping = new AbortController();

  const allowedOrigins = originAllowList(config.mcpAllowedOrigins);

  return {
    sessions,
    allowedOrigins,
    listTools: (caller, options) => listAgentTools(store.repos, caller, { ...options, pageSize: config.mcpToolsPageSize }),
    async callTool(caller, request) {
      // One controller per call, listeners removed after: AbortSignal.any on a process-long signal leaks on Node 20.
      const controller = new AbortController();
      const abort = (): void => controller.abort();
      stopping.signal.addEventListener('abort', abort);
      request.signal?.addEventListener('abort', abort);
      if (stopping.signal.aborted || request.signal?.aborted) abort();
      try {
        return await callAgentTool(caller, { ...request, signal: controller.signal });
      } finally {
        stopping.signal.removeEventListener('abort', abort);
        request.signal?.removeEventListener('abort', abort);
      }
    },
    stop: () => stopping.abort(),
  };
}
