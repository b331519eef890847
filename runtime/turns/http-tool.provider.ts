// The built-in `http` integration as a tool provider: offered when the procedure references it, never carrying credentials.
import { HTTP_INTEGRATION, HTTP_INTEGRATION_ID, createBuiltinHttpExecutor, type BuiltinHttpOptions } from '../tools/index.js';
import type { ToolProvider } from '../tools/tool-providers.js';

export function createHttpToolProvider(options: BuiltinHttpOptions = {}): ToolProvider {
  const executor = createBuiltinHttpExecutor(options);
  return {
    integrationId: HTTP_INTEGRATION_ID,
    tools: ({ inBelt }) => (inBelt ? HTTP_INTEGRATION.tools : []),
    execute: (call) => executor.execute({ toolName: call.toolName, args: call.args, signal: call.signal }),
  };
}
