// Re-exports of the MCP endpoint's runtime, by name.
export { createMcpRuntime } from './mcp.runtime.js';
export type { McpRuntime, McpRuntimeDeps } from './mcp.runtime.js';
export type { McpSession, McpSessionStore } from './mcp-session-store.js';
export { InvalidParamsError } from './invalid-params.js';
export type { AgentToolResult } from './tool-result.js';
export type { AgentTool, ToolPage } from './agent-tools.js';
export { AUTOMATION_ID_META, executableAgents } from './agent-tools.js';
export { toolNameOf, TOOL_NAME_PATTERN } from './agent-tool-name.js';
export { normalizeOrigin } from './origins.js';
