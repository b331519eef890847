// Turn and tool-call metrics and lifecycle log lines, read from committed session events (no hook in the engines).
import { Counter, Histogram, type Registry } from 'prom-client';
import type { SessionEventEnvelope } from '../events/index.js';
import type { Logger } from '../logger.js';
import { WORK_SECONDS } from './buckets.js';

/**
 * The session event bus publishes every turn fact after its commit, for agent turns and flow runs alike; this
 * observer turns them into series and log lines. Durations use the events' timestamps (the injected clock), from
 * `turn.started` to the turn's suspension or completion; a turn started before a restart has no duration.
 */
export function createTurnSignals(registry: Registry, logger: Pick<Logger, 'info'>) {
  const started = new Counter({ name: 'switchyard_turns_started_total', help: 'Turns (agent turns and flow runs) that started running, by whether they resumed after an approval.', labelNames: ['resumed'], registers: [registry] });
  const settled = new Counter({ name: 'switchyard_turns_total', help: 'Turns that stopped running, by outcome (completed, failed, rejected, or suspended on an approval).', labelNames: ['outcome'], registers: [registry] });
  const duration = new Histogram({ name: 'switchyard_turn_duration_seconds', help: 'Running time of a turn from start (or resume) to suspension or completion, by outcome.', labelNames: ['outcome'], buckets: WORK_SECONDS, registers: [registry] });
  const budgets = new Counter({ name: 'switchyard_turn_budget_failures_total', help: 'Turns ended by a budget (steps, tokens, wall_time).', labelNames: ['budget'], registers: [registry] });
  const toolCalls = new Counter({ name: 'switchyard_tool_calls_total', help: 'Finished tool calls by outcome, the identity they ran as (caller, organization, none) and error code.', labelNames: ['outcome', 'identity', 'code'], registers: [registry] });
  const toolSeconds = new Histogram({ name: 'switchyard_tool_call_duration_seconds', help: 'Tool call running time by identity.', labelNames: ['identity'], buckets: WORK_SECONDS, registers: [registry] });
  /** executionId -> epoch ms its current run started; entries leave when the run suspends or completes. */
  const running = new Map<string, number>();

  function settle(envelope: SessionEventEnvelope, executionId: string, outcome: string): number | null {
    const since = running.get(executionId);
    running.delete(executionId);
    settled.inc({ outcome });
    if (since === undefined) return null;
    const ms = Math.max(0, Date.parse(envelope.ts) - since);
    duration.observe({ outcome }, ms / 1000);
    return ms;
  }

  return (envelopes: readonly SessionEventEnvelope[]): void => {
    for (const envelope of envelopes) {
      const { event, sessionId } = envelope;
      switch (event.type) {
        case 'turn.started':
          running.set(event.executionId, Date.parse(envelope.ts));
          started.inc({ resumed: String(event.resumed) });
          logger.info({ sessionId, executionId: event.executionId, resumed: event.resumed }, 'turn started');
          break;
        case 'turn.suspended': {
          const ms = settle(envelope, event.executionId, 'suspended');
          logger.info({ sessionId, executionId: event.executionId, approvalId: event.approvalId, tool: event.toolName, ms }, 'turn suspended');
          break;
        }
        case 'turn.completed': {
          const ms = settle(envelope, event.executionId, event.outcome);
          logger.info({ sessionId, executionId: event.executionId, outcome: event.outcome, errorCode: event.errorCode, ms }, 'turn completed');
          break;
        }
        case 'budget.failed':
          budgets.inc({ budget: event.budget });
          break;
        case 'tool_call.finished': {
          const identity = event.identity ?? 'none';
          toolCalls.inc({ outcome: event.status, identity, code: event.errorCode ?? 'none' });
          toolSeconds.observe({ identity }, event.durationMs / 1000);
          break;
        }
        default:
          break;
      }
    }
  };
}
