// A span per engine run (an agent turn or a flow run), active while it runs so model steps and tool calls nest in it.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import type { SessionEngine } from '../turns/engine.js';
import { SpanKind, type Tracing } from './tracing.js';

/**
 * The span's parent is whatever dispatched the session (a fire, a message, an approval decision), since the
 * dispatcher starts its work in that context; a run resumed by boot recovery starts a trace of its own.
 */
export function traceEngines(tracing: Tracing, repos: Pick<PortRepositories, 'executions'>, dispatcher: SessionDispatcher): SessionDispatcher {
  return {
    ...dispatcher,
    registerEngine(kind, engine) {
      const traced: SessionEngine = {
        admit: (request, automation) => engine.admit(request, automation),
        writeStart: (tx, start) => engine.writeStart(tx, start),
        run(execution, signal) {
          const attributes = {
            'switchyard.automation.kind': kind,
            'switchyard.automation.id': execution.automationId,
            'switchyard.session.id': execution.sessionId,
            'switchyard.execution.id': execution.executionId,
            'switchyard.execution.resumed_from': execution.status,
          };
          return tracing.inSpan(kind === 'agent' ? 'turn' : 'flow run', { kind: SpanKind.INTERNAL, attributes }, async (span) => {
            await engine.run(execution, signal);
            // A read per run only when someone records it (tracing off hands out a span that records nothing).
            if (!span.isRecording()) return;
            const status = (await repos.executions.execution(execution.executionId))?.status;
            if (status !== undefined) span.setAttribute('switchyard.execution.status', status);
          });
        },
      };
      dispatcher.registerEngine(kind, traced);
    },
  };
}
