// A span per integration tool call, active while its upstream request is sent so `traceparent` travels with it.
import type { HttpIntegrationExecutor } from '../tools/index.js';
import { failSpan, hostOf, SpanKind, type Tracing } from './tracing.js';

/**
 * Attributes name the tool, its integration, the identity it runs as and the upstream host: never the identity's
 * material, the URL (its query can carry arguments) or a response. Counts come from `tool_call.finished` events.
 */
export function traceToolCalls(tracing: Tracing, executor: HttpIntegrationExecutor): HttpIntegrationExecutor {
  return {
    execute(call) {
      const attributes = {
        'switchyard.tool.name': call.tool.name,
        'switchyard.integration.id': call.integration.id,
        'switchyard.tool.identity': call.identity.runAs,
        'http.request.method': call.tool.request.method,
        'server.address': hostOf(call.integration.baseUrl),
      };
      return tracing.inSpan(`tool ${call.tool.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const result = await executor.execute(call);
        if (result.ok) span.setAttribute('http.response.status_code', result.status);
        else {
          if (result.code === 'UPSTREAM_ERROR') span.setAttribute('http.response.status_code', result.status);
          failSpan(span, result.code);
        }
        return result;
      });
    },
  };
}
