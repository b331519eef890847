// Owns sending one flow tool call to what serves its integration: the declarative HTTP executor or a built-in tool provider.
import type { FoundTool } from '../tools/catalog.js';
import type { HttpIntegrationExecutor, ToolIdentity } from '../tools/http-integration.executor.js';
import type { ToolResult } from '../tools/tool-result.js';
import type { ToolCallScope, ToolProviderRegistry } from '../tools/tool-providers.js';

export interface FlowToolCall {
  readonly found: FoundTool;
  readonly args: Record<string, unknown>;
  /** Null for built-in tools: providers run with the service's own authority, never with caller or connection material. */
  readonly identity: ToolIdentity | null;
  readonly scope: ToolCallScope;
  readonly signal: AbortSignal;
}

export interface FlowToolExecutor {
  /** Whether the tool can be called from a flow here (a built-in needs its provider registered). */
  available(found: FoundTool): boolean;
  execute(call: FlowToolCall): Promise<ToolResult>;
}

export interface FlowToolExecutorDeps {
  readonly http: HttpIntegrationExecutor;
  /** Built-in integrations (`http`); the same registry the agent engine uses. */
  readonly providers?: Pick<ToolProviderRegistry, 'get'>;
}

export function createFlowToolExecutor(deps: FlowToolExecutorDeps): FlowToolExecutor {
  return {
    available: (found) => found.source === 'manifest' || deps.providers?.get(found.integration.id) !== undefined,
    async execute(call) {
      const { found } = call;
      if (found.source === 'manifest') {
        if (call.identity === null) throw new TypeError('a declarative integration call needs an identity');
        return deps.http.execute({ integration: found.integration, tool: found.tool, args: call.args, identity: call.identity, signal: call.signal, orgId: call.scope.orgId });
      }
      const provider = deps.providers?.get(found.integration.id);
      if (provider === undefined) throw new TypeError(`no provider serves "${found.integration.id}"`);
      return provider.execute({ toolName: found.tool.name, args: call.args, scope: call.scope, signal: call.signal });
    },
  };
}
